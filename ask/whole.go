package ask

import (
	"fmt"
	"strconv"
)

// whole holds what the kinds answered with one whole number about the
// scenario as a whole (stack, cache-line-k) share: they take no request
// and no lanes, and a room, which asks about its lanes one by one, does
// not ask them.
type whole struct {
	// more and fewer say which way a wrong number is off.
	more, fewer string
	// what names the number in a message ("a count", "k").
	what string
}

func (whole) Instant() Instant { return WholeScenario }
func (whole) Lanes() LaneRule  { return NoLanes }

func (whole) answersInWholeNumbers() {}

func (w whole) Parse(_ Question, text string, _ []string) (Answer, error) {
	n, err := readWhole(text, w.what)
	return Answer{Count: n}, err
}

func (w whole) grade(k Kind, q Question, sol Solution, text string, choices []string) Feedback {
	fb, ans, ok := read(k, q, sol, text, choices)
	if ok {
		fb.Correct = ans.Count == sol.Count
		fb.Direction = direction(int64(ans.Count), int64(sol.Count), w.more, w.fewer)
	}
	return fb
}

func (whole) Text(_ Question, a Answer) string     { return strconv.Itoa(a.Count) }
func (whole) Hint(Question, Solution, Form) string { return "A whole number." }
func (whole) Ask(Question) string                  { return "" }
func (whole) Choices(Question) []int64             { return nil }
func (whole) Word(_ Question, v int64) string      { return strconv.FormatInt(v, 10) }

func (whole) Value(q Question, _ int, text string) (int64, error) {
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not one of the answers", cut(text, 40))
	}
	return v, nil
}

func (w whole) Check(_ Question, _ int, v int64) string {
	if v < 0 {
		return fmt.Sprintf("%s can't be negative", w.what)
	}
	return ""
}
