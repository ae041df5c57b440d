package room

import (
	"testing"

	"github.com/windowlab/playground/lessons"
)

// The presenter's menu lists the lessons' presets, which the playground
// offers too, the several-servers scenario among them.
func TestRoomMenuListsThePresets(t *testing.T) {
	if len(roomPresets) != len(lessons.Presets) {
		t.Fatalf("the menu lists %d presets, want the %d of lessons.Presets", len(roomPresets), len(lessons.Presets))
	}
	several := false
	for i, p := range roomPresets {
		if p.Name != lessons.Presets[i].Name || p.Label != lessons.Presets[i].Label {
			t.Errorf("preset %d is %+v, want %+v", i+1, p, lessons.Presets[i])
		}
		several = several || p.Name == "several-servers"
	}
	if !several {
		t.Error("the menu does not offer the several-servers scenario")
	}
}
