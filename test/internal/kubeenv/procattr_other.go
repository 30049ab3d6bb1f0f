//go:build !linux

package kubeenv

import "syscall"

// childAttr: without Pdeathsig outside Linux, cleanup relies on Env.stop.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
