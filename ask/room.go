package ask

import (
	"cmp"
	"slices"
)

// InRoom is implemented by a kind a workshop room asks: of each lane,
// about the next request (or N of them) at the clock, answered by tapping
// one of its Choices or, with none, by typing into a field labelled
// Prompt.
type InRoom interface {
	Kind
	// Menu is the kind's entry in the presenter's menu and its place
	// there (lower first); "" for a kind a room does not ask.
	Menu() (label string, place int)
	// Prompt labels the field a phone types an answer in; "" for a kind
	// answered by tapping.
	Prompt() string
}

// RoomKinds are the kinds a room asks, in the order the presenter's menu
// lists them.
func RoomKinds() []InRoom {
	var out []InRoom
	for _, k := range kinds {
		if r, ok := k.(InRoom); ok {
			if label, _ := r.Menu(); label != "" {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b InRoom) int {
		_, pa := a.Menu()
		_, pb := b.Menu()
		return cmp.Compare(pa, pb)
	})
	return out
}

// Fitting is implemented by a room kind that has an answer worth asking
// only of some lanes: Fits says, for a question about q's lanes, why it
// would not ("" when it does), so the presenter's menu leaves it out and
// the room refuses it in words.
type Fitting interface {
	Fits(q Question) string
}

// Fits says why a kind has no answer worth asking about q's lanes, "" when
// it has one (or the kind fits every lane).
func Fits(k Kind, q Question) string {
	if f, ok := k.(Fitting); ok {
		return f.Fits(q)
	}
	return ""
}
