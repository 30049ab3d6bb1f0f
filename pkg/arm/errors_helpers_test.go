package arm

import "net/http"

// isConflict reports a 409.
func isConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// isThrottled reports a 429 that survived all retries.
func isThrottled(err error) bool { return StatusCode(err) == http.StatusTooManyRequests }
