package room

import (
	"net/http"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
)

// The projector is presentation only, so leaving presentation mode leaves
// the projector: its link must not lead back to itself.
func TestProjectorLeavesPresentationMode(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	page := presenter.get("/room/" + id + "/present")
	doc, links := webtest.LocalLinks(t, page.body)
	toggle := doc.Find(`[data-testid="presentation-toggle"]`)
	leave := toggle.AttrOr("href", "")
	if !strings.Contains(toggle.Text(), "Leave presentation mode") || leave == "" || strings.HasPrefix(leave, "/room/"+id+"/present") {
		t.Fatalf("projector's toggle %q links to %q; want a link that leaves the projector", strings.TrimSpace(toggle.Text()), leave)
	}
	left := presenter.get(leave)
	if left.status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", leave, left.status)
	}
	ldoc, _ := webtest.LocalLinks(t, left.body)
	if ldoc.Find("body.presentation").Length() != 0 || strings.Contains(ldoc.Find(`[data-testid="presentation-toggle"]`).Text(), "Leave") {
		t.Errorf("after following “Leave presentation mode” to %s, the page is still in presentation mode", leave)
	}
	for _, l := range links {
		if strings.HasPrefix(l, "/lessons") || strings.HasPrefix(l, "/exercises") {
			continue // the room fixture serves no lessons; the nav's links are crawled above
		}
		if strings.HasSuffix(l, "/question.csv") {
			continue // 409 until a question is revealed; TestRoomQuestionCSV follows it
		}
		if st := presenter.get(l).status; st != http.StatusOK {
			t.Errorf("projector link %s: status %d, want 200", l, st)
		}
	}
}
