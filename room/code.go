package room

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// CodeAlphabet is what join and pairing codes are made of: digits and
// capitals without 0, O, 1, I and L, which people misread on a projector
// and mistype on a phone. 31 characters.
const CodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// CodeLen is the length of a join code: 31^5 ≈ 28.6 million codes, so a
// new code rarely meets one of the at most MaxRooms live ones and a guess
// rarely lands in a room (and watching is no capability anyway).
const CodeLen = 5

// PairCodeLen is the length of a pairing code. It grants the presenter's
// capability, so it is longer (31^8 ≈ 8.5e11) and also expires and burns
// after a few wrong tries (Bounds.PairTTL, Bounds.PairAttempts).
const PairCodeLen = 8

// newCode draws n characters of CodeAlphabet uniformly from rnd, by
// rejection: bytes of 248 or more are thrown away, since 248 = 8 × 31.
func newCode(rnd io.Reader, n int) (string, error) {
	out := make([]byte, 0, n)
	var buf [16]byte
	for len(out) < n {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return "", fmt.Errorf("room: drawing a code: %w", err)
		}
		for _, b := range buf {
			if b < 248 && len(out) < n {
				out = append(out, CodeAlphabet[b%31])
			}
		}
	}
	return string(out), nil
}

// NormaliseCode reads a code as people type it: any case, with spaces or
// dashes anywhere. It returns the code in canonical form, or an error that
// says what is wrong with it.
func NormaliseCode(typed string, length int) (string, error) {
	var b strings.Builder
	for _, c := range strings.ToUpper(typed) {
		switch {
		case c == ' ' || c == '-' || c == '\t':
			continue
		case strings.ContainsRune(CodeAlphabet, c):
			b.WriteRune(c)
		case strings.ContainsRune("0O1IL", c):
			return "", fmt.Errorf("%q is not in any code: codes never use 0, O, 1, I or L", c)
		default:
			return "", fmt.Errorf("%q is not in any code: codes use letters and the digits 2 to 9", c)
		}
	}
	if b.Len() != length {
		return "", fmt.Errorf("a code has %d characters; %q has %d", length, strings.TrimSpace(typed), b.Len())
	}
	return b.String(), nil
}

// newSecret returns 128 random bits, URL-safe: room and attendee ids and
// presenter capabilities.
func newSecret(rnd io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", fmt.Errorf("room: drawing a secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// hashSecret is what a room keeps of a capability: whoever reads a stored
// room (a KV dump, a log line) learns nothing that lets them drive it.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// sameHash compares two hashes in constant time.
func sameHash(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
