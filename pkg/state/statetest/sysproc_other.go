//go:build !linux

package statetest

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return nil }
