package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// ConfigMapSource is configmap://NAMESPACE?selector=LABELS: every
// manifest key (.yaml, .yml, .json) of the ConfigMaps the selector
// matches, kept current by an informer. The loader reads files, so Load
// writes the keys under Dir as NAME/KEY; problems name them
// configmap://NAMESPACE/NAME/KEY with their line.
type ConfigMapSource struct {
	Client    kubernetes.Interface
	Namespace string
	Selector  string
	// Dir is a private directory Load may empty and fill.
	Dir string
	// LoadDir reads the manifests under a directory.
	LoadDir func(ctx context.Context, dir string) (*manifest.Set, error)

	lister corev1listers.ConfigMapNamespaceLister
}

func (c *ConfigMapSource) String() string {
	s := "configmap://" + c.Namespace
	if c.Selector != "" {
		s += "?selector=" + c.Selector
	}
	return s
}

// Start runs the informer until ctx ends and waits for its first list.
// An empty selector is refused: it would take every ConfigMap of the
// namespace (other apps', the state's own) as manifests.
func (c *ConfigMapSource) Start(ctx context.Context) error {
	if strings.TrimSpace(c.Selector) == "" {
		return fmt.Errorf("configmap://%s needs a selector, or every ConfigMap of the namespace is read as manifests: use configmap://%s?selector=LABELS", c.Namespace, c.Namespace)
	}
	if _, err := labels.Parse(c.Selector); err != nil {
		return fmt.Errorf("selector %q: %w", c.Selector, err)
	}
	f := informers.NewSharedInformerFactoryWithOptions(c.Client, 10*time.Minute,
		informers.WithNamespace(c.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = c.Selector }))
	inf := f.Core().V1().ConfigMaps()
	c.lister = inf.Lister().ConfigMaps(c.Namespace)
	informer := inf.Informer()
	f.Start(ctx.Done())
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(wctx.Done(), informer.HasSynced) {
		return errors.New("listing ConfigMaps did not finish within a minute: check the namespace and that the service account may list and watch configmaps there")
	}
	return nil
}

func (c *ConfigMapSource) list() ([]string, map[string]map[string]string, error) {
	cms, err := c.lister.List(labels.Everything())
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(cms))
	data := map[string]map[string]string{}
	for _, cm := range cms {
		names = append(names, cm.Name)
		data[cm.Name] = cm.Data
	}
	sort.Strings(names)
	return names, data, nil
}

// Fingerprint is the names and resource versions of the ConfigMaps.
func (c *ConfigMapSource) Fingerprint(context.Context) (string, error) {
	cms, err := c.lister.List(labels.Everything())
	if err != nil {
		return "", err
	}
	fp := make([]string, 0, len(cms))
	for _, cm := range cms {
		fp = append(fp, cm.Name+"@"+cm.ResourceVersion)
	}
	sort.Strings(fp)
	h := sha256.Sum256([]byte(strings.Join(fp, "\n")))
	return hex.EncodeToString(h[:]), nil
}

// Load writes the manifest keys under Dir and reads them.
func (c *ConfigMapSource) Load(ctx context.Context) (*manifest.Set, error) {
	names, data, err := c.list()
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, err
	}
	for _, n := range names {
		for k, v := range data[n] {
			switch strings.ToLower(filepath.Ext(k)) {
			case ".yaml", ".yml", ".json":
			default:
				continue
			}
			d := filepath.Join(c.Dir, n)
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(d, k), []byte(v), 0o600); err != nil {
				return nil, err
			}
		}
	}
	set, err := c.LoadDir(ctx, c.Dir)
	var ve *manifest.ValidationError
	if errors.As(err, &ve) {
		for i := range ve.Problems {
			ve.Problems[i].File = c.name(ve.Problems[i].File)
		}
	}
	if set != nil {
		for _, r := range set.Resources {
			r.Origin.File = c.name(r.Origin.File)
		}
	}
	return set, err
}

// name turns a file under Dir into configmap://NAMESPACE/NAME/KEY.
func (c *ConfigMapSource) name(file string) string {
	rel, err := filepath.Rel(c.Dir, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return file
	}
	return "configmap://" + c.Namespace + "/" + filepath.ToSlash(rel)
}
