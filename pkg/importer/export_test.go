package importer

// EnvValues exposes, for tests, the live secret each placeholder variable
// stands for: what a user would export before the first diff.
func EnvValues(res *Result) map[string]string { return res.envValues }

// NewestStable returns, for tests, the api-version import tries first for a type the
// schema knows: the newest stable one (a preview only when nothing else
// exists); "" for an unknown type.
func NewestStable(s SchemaSource, typ string) string {
	if s == nil {
		return ""
	}
	if vs := orderVersions(s.Versions(typ)); len(vs) > 0 {
		return vs[0]
	}
	return ""
}
