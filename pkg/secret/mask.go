package secret

// Masked reports whether s is what a service answers in place of a value
// it withholds: asterisks only ("*****"; some services mask per
// character, so a one-letter secret reads "*"). An empty string is not a
// mask: it hides nothing, and a service that blanks a value answers it
// as a value of its own (the diff judges blanked settings apart).
func Masked(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '*' {
			return false
		}
	}
	return true
}
