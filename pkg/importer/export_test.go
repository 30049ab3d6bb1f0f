package importer

// EnvValues exposes, for tests, the live secret each placeholder variable
// stands for: what a user would export before the first diff.
func EnvValues(res *Result) map[string]string { return res.envValues }
