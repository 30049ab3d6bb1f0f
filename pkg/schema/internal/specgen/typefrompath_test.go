package specgen

// typeFromPath derives the ARM resource type from a resource path: the
// namespace after the last "providers" segment, then every other segment
// (the names sit between). Paths ending on an action or a collection, or
// with a parameterised namespace or type, are not resource PUTs.
func typeFromPath(p string) (string, bool) {
	ts := typesFromPath(p, nil)
	if len(ts) != 1 {
		return "", false
	}
	return ts[0], true
}
