package play

import (
	"crypto/sha256"
	"crypto/subtle"
)

// ControlToken is the secret that gives the right to change the session,
// 130 random bits made with it. The id lets anyone who holds it watch the
// session (its stream, its downloads); changing it also takes this token,
// which the web layer gives only to the browser that opened the session and
// never puts in a URL. Only the session that made it knows it: one restored
// from a Saved holds its hash alone and returns "" (the browser that opened
// the session got its cookie then).
func (s *Session) ControlToken() string { return s.control }

// Controls reports whether token is the session's ControlToken. It compares
// hashes, which a restored session also holds, in time that does not
// depend on how much of them matches.
func (s *Session) Controls(token string) bool {
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], s.controlHash[:]) == 1
}
