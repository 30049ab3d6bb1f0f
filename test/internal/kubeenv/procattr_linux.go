package kubeenv

import "syscall"

// childAttr makes the kernel kill etcd and the apiserver when the test
// binary dies (a test timeout kills it without running cleanups), so no
// server is left behind holding ports.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
