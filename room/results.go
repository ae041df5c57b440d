package room

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
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
	for _, id := range q.answerOrder() {
		for i, v := range q.Answers[id].Values {
			if i < len(q.Lanes) {
				rows = append(rows, row(i, "answer", DeviceName(id), v, "", v == q.Truth[i]))
			}
		}
	}
	return rows, nil
}

// keep records question q, just revealed, among the room's past questions,
// dropping the oldest beyond Bounds.Past questions or Bounds.PastAnswers
// answers (the newest question is always kept).
func (r *Room) keep(b Bounds, q *Question) {
	r.unkeep(q.ID)
	r.Past = append(r.Past, q.clone())
	held := 0
	for _, p := range r.Past {
		held += len(p.Answers)
	}
	drop := 0
	for len(r.Past)-drop > 1 && (len(r.Past)-drop > b.Past || held > b.PastAnswers) {
		held -= len(r.Past[drop].Answers)
		drop++
	}
	r.Past = slices.Delete(r.Past, 0, drop)
}

// unkeep forgets past question id, whose reveal is undone.
func (r *Room) unkeep(id int) {
	r.Past = slices.DeleteFunc(r.Past, func(p *Question) bool { return p.ID == id })
}

// RoomHeader names the columns of Room.Results' rows: one row per phone
// per revealed question.
var RoomHeader = []string{"question", "kind", "asked", "device", "nickname", "answer", "lanes", "lanes_right", "correct", "seconds_to_answer"}

// Record is everything a room keeps of its revealed questions, for the
// presenter to take home (JSON) and for the summary on screen.
type Record struct {
	Code      string           `json:"code"`
	Questions []QuestionRecord `json:"questions"`
	// Phones are every device that answered, best score first.
	Phones []PhoneRecord `json:"phones"`
}

// QuestionRecord is one revealed question: what it asked, the truth per
// lane and every answer.
type QuestionRecord struct {
	ID      int            `json:"id"`
	Kind    Kind           `json:"kind"`
	Asked   string         `json:"asked"` // the question in words
	Lanes   []string       `json:"lanes"`
	Truth   []string       `json:"truth"` // per lane, in the kind's words
	Right   int            `json:"right"` // phones whose every lane was right
	Answers []AnswerRecord `json:"answers"`
}

// AnswerRecord is one phone's answer to one question.
type AnswerRecord struct {
	Device   string   `json:"device"` // DeviceName
	Nickname string   `json:"nickname,omitempty"`
	Values   []string `json:"values"` // per lane, in the kind's words
	Right    []bool   `json:"right"`
	Correct  bool     `json:"correct"` // every lane right
	// Seconds is how long after the question was asked the answer (its
	// last change) came.
	Seconds float64 `json:"seconds"`
}

// PhoneRecord is one phone's score over the room's revealed questions.
type PhoneRecord struct {
	Device   string `json:"device"`
	Nickname string `json:"nickname,omitempty"`
	Answered int    `json:"answered"`
	Correct  int    `json:"correct"`
}

// Record gathers the room's revealed questions (those Bounds.Past kept).
func (r *Room) Record() Record {
	rec := Record{Code: r.Code, Questions: []QuestionRecord{}, Phones: []PhoneRecord{}}
	phones := map[string]*PhoneRecord{}
	for _, q := range r.Past {
		kind, asked := q.Ask()
		qr := QuestionRecord{ID: q.ID, Kind: q.Kind, Asked: kind.Ask(asked), Answers: []AnswerRecord{}}
		for i := range q.Lanes {
			qr.Lanes = append(qr.Lanes, q.Label(i))
			qr.Truth = append(qr.Truth, kind.Word(asked, q.Truth[i]))
		}
		for _, id := range q.answerOrder() {
			a := q.Answers[id]
			ar := AnswerRecord{Device: DeviceName(id), Nickname: r.nicknameOf(id, a), Right: q.Marks(a), Correct: true,
				Seconds: a.At.Sub(q.Asked).Seconds()}
			for i, v := range a.Values {
				ar.Values = append(ar.Values, kind.Word(asked, v))
				ar.Correct = ar.Correct && i < len(ar.Right) && ar.Right[i]
			}
			if ar.Correct {
				qr.Right++
			}
			qr.Answers = append(qr.Answers, ar)
			p := phones[ar.Device]
			if p == nil {
				p = &PhoneRecord{Device: ar.Device}
				phones[ar.Device] = p
			}
			p.Nickname = ar.Nickname
			p.Answered++
			if ar.Correct {
				p.Correct++
			}
		}
		rec.Questions = append(rec.Questions, qr)
	}
	for _, p := range phones {
		rec.Phones = append(rec.Phones, *p)
	}
	slices.SortFunc(rec.Phones, func(a, b PhoneRecord) int {
		return cmp.Or(cmp.Compare(b.Correct, a.Correct), cmp.Compare(b.Answered, a.Answered), cmp.Compare(a.Nickname, b.Nickname), cmp.Compare(a.Device, b.Device))
	})
	return rec
}

// nicknameOf is the attendee's nickname now, or the one it answered under
// when it has left the room.
func (r *Room) nicknameOf(id string, a Answer) string {
	if _, here := r.Attendees[id]; here {
		return r.Names[id]
	}
	return a.Name
}

// answerOrder lists the question's answering attendee ids in the order
// they answered (ties by public name).
func (q *Question) answerOrder() []string {
	ids := make([]string, 0, len(q.Answers))
	for id := range q.Answers {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y string) int {
		return cmp.Or(q.Answers[x].At.Compare(q.Answers[y].At), cmp.Compare(DeviceName(x), DeviceName(y)))
	})
	return ids
}

// Rows are the record as table rows (RoomHeader first), one per phone per
// question, for a CSV download.
func (rec Record) Rows() [][]string {
	rows := [][]string{slices.Clone(RoomHeader)}
	for _, q := range rec.Questions {
		for _, a := range q.Answers {
			right := 0
			for _, ok := range a.Right {
				if ok {
					right++
				}
			}
			rows = append(rows, []string{strconv.Itoa(q.ID), string(q.Kind), q.Asked, a.Device, a.Nickname,
				strings.Join(a.Values, " | "), strconv.Itoa(len(q.Lanes)), strconv.Itoa(right), strconv.FormatBool(a.Correct),
				strconv.FormatFloat(a.Seconds, 'f', 1, 64)})
		}
	}
	return rows
}
