package room

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
)

// ErrNotRevealed refuses a question's results before its reveal: until
// then the distribution of answers is the one thing the projector keeps
// from the room, so it is not handed out either.
var ErrNotRevealed = errors.New("room: the question has not been revealed yet; reveal it first, then download its results")

// ResultsHeader names the columns of Results' rows.
var ResultsHeader = []string{"question", "kind", "at_ms", "cost", "n", "lane", "row", "device", "value", "meaning", "count", "right"}

// Results are a revealed question's tally and answers as table rows
// (ResultsHeader first), for a presenter's CSV download:
//
//   - per lane, a "truth" row, then one "tally" row per answer value with
//     how many devices gave it (every value the projector's bars show, none
//     left out for having no votes);
//   - then one "answer" row per device and lane, in the order the devices
//     answered, the device by its public name (DeviceName, as the devices
//     page lists it), never its secret id.
//
// Every number is spelled as the room's JSON spells it (the Question's
// fields: instants in ms, admitted 1 and refused 0, Never as its value;
// right as true or false), with the question kind's own words for the
// value beside it in "meaning", as the projector writes it.
func (q *Question) Results() ([][]string, error) {
	if q == nil {
		return nil, ErrNoQuestion
	}
	if !q.Revealed || len(q.Truth) != len(q.Lanes) {
		return nil, ErrNotRevealed
	}
	kind, asked := q.Ask()
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	head := []string{strconv.Itoa(q.ID), string(q.Kind), i64(q.Request.At), i64(q.Request.Cost), i64(q.Request.Count)}
	row := func(lane int, what, device string, value int64, count string, right bool) []string {
		return append(slices.Clone(head), q.Label(lane), what, device, i64(value), kind.Word(asked, value), count, strconv.FormatBool(right))
	}
	rows := [][]string{slices.Clone(ResultsHeader)}
	t := q.Tally()
	for i := range q.Lanes {
		rows = append(rows, row(i, "truth", "", q.Truth[i], "", true))
		for _, v := range t.Lanes[i].Votes {
			rows = append(rows, row(i, "tally", "", v.Value, strconv.Itoa(v.Count), v.Right))
		}
	}
	type named struct {
		name string
		a    Answer
	}
	answers := make([]named, 0, len(q.Answers))
	for id, a := range q.Answers {
		answers = append(answers, named{DeviceName(id), a})
	}
	slices.SortFunc(answers, func(x, y named) int {
		return cmp.Or(x.a.At.Compare(y.a.At), cmp.Compare(x.name, y.name))
	})
	for _, n := range answers {
		for i, v := range n.a.Values {
			if i < len(q.Lanes) {
				rows = append(rows, row(i, "answer", n.name, v, "", v == q.Truth[i]))
			}
		}
	}
	return rows, nil
}
