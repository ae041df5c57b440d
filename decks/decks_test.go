package decks

import (
	"testing"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/room"
)

// TestShippedDecksCheck reads every shipped deck as `playground check`
// does: each question is built and solved against its scenario.
func TestShippedDecksCheck(t *testing.T) {
	lib, err := lessons.Load()
	if err != nil {
		t.Fatal(err)
	}
	all, err := Load(lib, room.DefaultBounds())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"introduction": true, "several-servers": true}
	for _, s := range all {
		delete(want, s.Name)
		asks := 0
		for _, st := range s.Deck.Steps {
			if _, ok := st.Question(); ok {
				asks++
			}
		}
		if asks == 0 {
			t.Errorf("deck %s asks nothing", s.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("decks missing: %v", want)
	}
	if _, err := Find(all, "nope"); err == nil {
		t.Error("Find found a deck that is not shipped")
	}
}
