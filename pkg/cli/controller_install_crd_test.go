package cli

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
)

// TestControllerInstallPrintsTheShippedCRD: the first object printed is
// config/crd/resources.yaml as shipped, so applying the install and
// applying the file give the cluster the same API.
func TestControllerInstallPrintsTheShippedCRD(t *testing.T) {
	code, out, errOut := install(t, goodInstall...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	docs := installDocs(t, out)
	var shipped map[string]any
	if err := yaml.UnmarshalStrict(crd.YAML, &shipped); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(docs[0], shipped) {
		t.Fatalf("the printed CRD differs from config/crd/resources.yaml:\n%v", docs[0])
	}
	if dig(docs[0], "spec", "versions", 0, "subresources", "status") == nil {
		t.Fatal("the printed CRD lost its status subresource")
	}
	if n := len(ofKind(docs, "CustomResourceDefinition")); n != 1 {
		t.Fatalf("%d CRDs printed", n)
	}
}
