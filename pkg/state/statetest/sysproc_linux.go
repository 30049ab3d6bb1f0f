package statetest

import "syscall"

// childProcAttr makes etcd and the apiserver die with the test binary, even
// when it is killed by a timeout, so no test leaves servers running.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
