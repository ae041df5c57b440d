package play

import "crypto/subtle"

// ControlToken is the secret that gives the right to change the session,
// 130 random bits made with it. The id lets anyone who holds it watch the
// session (its stream, its downloads); changing it also takes this token,
// which the web layer gives only to the browser that opened the session and
// never puts in a URL.
func (s *Session) ControlToken() string { return s.control }

// Controls reports whether token is the session's ControlToken, in time
// that does not depend on how much of it matches.
func (s *Session) Controls(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(s.control)) == 1
}
