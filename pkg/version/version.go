// Package version reports the build's version. Values are set by the linker
// (see Makefile) so that a release binary says exactly what it is.
package version

import "runtime/debug"

// Set with -ldflags "-X github.com/kubectl-azure/kubectl-azure/pkg/version.Version=...".
var (
	Version = "dev"
	Commit  = ""
)

// String is the version with the commit when known.
func String() string {
	c := Commit
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					c = s.Value[:12]
				}
			}
		}
	}
	if c == "" {
		return Version
	}
	return Version + " (" + c + ")"
}
