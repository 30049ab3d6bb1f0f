//go:build !linux

package state

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return nil }
