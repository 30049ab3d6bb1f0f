package arm

import "net/http"

// isConflict reports a 409.
func isConflict(err error) bool { return StatusCode(err) == http.StatusConflict }
