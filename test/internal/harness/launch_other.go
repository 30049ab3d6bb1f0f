//go:build !unix

package harness

// LaunchMain: the launcher measures through the kernel's rusage, which
// only unix systems give; elsewhere no benchmark starts one.
func LaunchMain() (int, bool) { return 0, false }
