package event

import "time"

// Time is when the transfer started (At); the zero time when At is not
// RFC 3339.
func (h History) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, h.At)
	return t
}
