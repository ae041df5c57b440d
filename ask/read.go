package ask

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/windowlab/playground/scenario"
)

// UnreadableError says an answer could not be read, and what would be.
type UnreadableError struct {
	Text string
	Want string
	// Why, when set, says what rules out an answer that was read ("a
	// count can't be negative"), in place of "can't be read".
	Why string
}

func (u UnreadableError) Error() string {
	if strings.TrimSpace(u.Text) == "" {
		return "There is no answer to check yet. " + u.Want
	}
	text := quoted(u.Text)
	if u.Why != "" {
		return fmt.Sprintf("“%s”: %s. %s", text, u.Why, u.Want)
	}
	return fmt.Sprintf("“%s” can't be read as an answer. %s", text, u.Want)
}

// maxQuoted is how much of an answer a message quotes back: enough to
// recognise any answer a question takes, and a 200,000-character one is
// not printed back whole.
const maxQuoted = 60

// quoted is text as a message quotes it, cut at maxQuoted characters.
func quoted(text string) string {
	if r := []rune(text); len(r) > maxQuoted {
		return string(r[:maxQuoted]) + "…"
	}
	return text
}

// ExponentWant is the message for a time such as "1e3": big.Rat reads it,
// but no one means 1000 s by it on purpose. It names no example time, so
// it cannot give the answer away.
const ExponentWant = "Write the number out in digits, not with an exponent, and give its unit (s or ms)."

// normal is text as the readers compare it: lower case, trimmed, without
// a closing full stop or exclamation mark.
func normal(text string) string {
	return strings.TrimRight(strings.ToLower(strings.TrimSpace(text)), ".!")
}

// readMoment reads a moment as people type it: "36", "36 s", "at 36
// seconds", "t=36", "36,5 s" (a decimal comma), "36000 ms". A bare number
// is in seconds, and bare says it was one.
func readMoment(text string) (ms int64, bare bool, err error) {
	t := normal(text)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "at "), "t=")
	t = decimalComma(t)
	ms, err = scenario.ParseMoment(t, 1000)
	return ms, strings.TrimRight(t, "0123456789., ") == "", err
}

// decimalComma reads a comma in a time as many people write a decimal point
// ("36,5 s" is 36.5 s), except in milliseconds, where it can only group
// thousands ("36,000 ms"), or beside a point, where it already does.
func decimalComma(t string) string {
	unit := strings.TrimLeft(t, "0123456789., ")
	if strings.Contains(t, ".") || strings.HasPrefix(unit, "ms") || strings.HasPrefix(unit, "milli") {
		return t
	}
	return strings.ReplaceAll(t, ",", ".")
}

// readWhole reads a whole number from 0 up, as "7", "12 requests", "k = 6"
// or "7 cars". what names the number in the message for a negative one.
func readWhole(text, what string) (int, error) {
	t := normal(text)
	t = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(t, "k"), " ="))
	t = strings.TrimSpace(strings.TrimPrefix(t, "="))
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(t, " requests"), " cars"))
	if err != nil {
		return 0, UnreadableError{Text: text, Want: "Give a whole number, such as 7."}
	}
	if n < 0 {
		return 0, UnreadableError{Text: text, Why: what + " can't be negative", Want: "Give a whole number from 0 up, such as 7."}
	}
	return n, nil
}

// tapValue reads a tapped value: a whole number, as the room's buttons
// send it.
func tapValue(q Question, lane int, text string) (int64, error) {
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not one of the answers", q.Label(lane), cut(text, 40))
	}
	return v, nil
}

// cut shortens text to n bytes for a message, marking the cut.
func cut(text string, n int) string {
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n] + "…"
}

// isExponent reports whether err refuses a time for its exponent, which
// is said apart from a time that cannot be read at all.
func isExponent(err error) bool { return errors.Is(err, scenario.ErrExponent) }
