package plan

import (
	"encoding/json"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// SensitiveText is how a withheld value reads in every output and in the
// JSON plan (docs/plan-format.md). It is secret.Placeholder, so a plan and
// a masked live body say the same.
const SensitiveText = secret.Placeholder

// Sensitive is the value a planned change holds where the secrecy rule
// withholds the real one. It is a type of its own, like Unknown, so a live
// value that reads like the mask is never taken for it, and the string is
// written by the JSON layer and the printers only.
type Sensitive struct{}

// MarshalJSON writes the marker as the contract has it: the string
// SensitiveText.
func (Sensitive) MarshalJSON() ([]byte, error) { return json.Marshal(SensitiveText) }

// String is the marker's display form, for messages that print a value
// with %v.
func (Sensitive) String() string { return SensitiveText }
