package play

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// A link to the several-servers preset opens the playground with its
// lanes on several servers drawn as such: the syncs on the axis, each
// mark numbered with its node, the combined count in the windows.
func TestPlayLinkDrawsSeveralServersLane(t *testing.T) {
	_, base, _ := newTestServer(t, Playground(play.NewStore(nil)))
	data, err := os.ReadFile("../../lessons/scenarios/several-servers.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	res := get(t, base+scenario.EncodeURL(sc))
	if res.status != http.StatusOK {
		t.Fatalf("GET the link: status %d", res.status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	lanes := doc.Find("[data-testid=lane]")
	if lanes.Length() != 4 {
		t.Fatalf("%d lanes, want the preset's 4", lanes.Length())
	}
	for i, want := range []struct {
		label      string
		syncTicks  bool
		nodeMarked bool
	}{
		{"fixed-window", false, false},
		{"fixed-window on 3 servers, sync 500 ms", true, true},
		{"fixed-window on 3 servers, no sync", false, true},
		{"fixed-window on 3 servers, central", false, true},
	} {
		lane := lanes.Eq(i)
		if got := lane.AttrOr("data-label", ""); got != want.label {
			t.Errorf("lane %d: label %q, want %q", i+1, got, want.label)
		}
		if got := lane.Find("[data-testid=sync-tick]").Length() > 0; got != want.syncTicks {
			t.Errorf("lane %d (%s): sync ticks drawn = %v, want %v", i+1, want.label, got, want.syncTicks)
		}
		if got := lane.Find("text.mark-node").Length() > 0; got != want.nodeMarked {
			t.Errorf("lane %d (%s): marks numbered by node = %v, want %v", i+1, want.label, got, want.nodeMarked)
		}
	}
}
