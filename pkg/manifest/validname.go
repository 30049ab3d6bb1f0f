package manifest

// ValidName is the check a literal resource name passes (ARM's segment
// rules, no leading space): the engine holds a name computed from live
// values to it once the value is known.
func ValidName(n string) error { return validName(n) }
