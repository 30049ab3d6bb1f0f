package convert_test

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestMultiLineStrings: ARM takes a string broken over lines, in an
// expression (where the break is white space) and in a literal (where it
// is kept), as rbac-builtinrole-virtualmachine's role assignment name is.
func TestMultiLineStrings(t *testing.T) {
	out, _ := convertText(t, "{"+schema+`,
  "variables": {"n": "[concat('a',
      'b')]"},
  "resources": [{"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {"n": "[variables('n')]", "text": "line one
line two\tand\u0021"}}}]}`, convert.Scope{})
	wantAll(t, out, "n: ab", "text: |-\n          line one\n          line two\tand!")
}
