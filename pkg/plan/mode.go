package plan

// Mode is what a plan is for: one value where flags that exclude each
// other used to be combined.
type Mode uint8

// Modes of a plan.
const (
	// ModeNormal makes Azure match the manifests; with the prune consent
	// it also deletes what the set no longer declares.
	ModeNormal Mode = iota
	// ModeRefreshOnly plans only drift; applying it records Azure's values
	// as the new baseline and writes nothing to Azure.
	ModeRefreshOnly
	// ModeDelete deletes what the manifests (or the named state records)
	// declare: the delete command.
	ModeDelete
)

// String names the mode as its command line says it.
func (m Mode) String() string {
	switch m {
	case ModeRefreshOnly:
		return "refresh-only"
	case ModeDelete:
		return "delete"
	}
	return "normal"
}
