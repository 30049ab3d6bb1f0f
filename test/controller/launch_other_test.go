//go:build !unix

package controller

// launchEnv is never set where the process benchmarks do not build.
const launchEnv = "KUBECTL_AZURE_TEST_LAUNCH"

func launchMain(string) int { return 125 }
