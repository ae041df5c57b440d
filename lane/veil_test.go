package lane

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// carParkAt is the car park (carPark) with the clock jumped back to now:
// the requests after it are drawn, later than the clock.
func carParkAt(t *testing.T, now int64) play.View {
	t.Helper()
	sess, err := play.NewStore(nil).New(scenario.Scenario{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Load(carPark(t).Scenario); err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{40_000, now} {
		if err := sess.Jump(at); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.ShowSpan(0, 90_000); err != nil {
		t.Fatal(err)
	}
	return sess.View()
}

// withoutParts is what a lane draws apart from its moving parts (Parts):
// what a frame of a playing clock must leave as it was for the lane not
// to be sent whole (web/play's laneRegions keys a lane by it).
func withoutParts(t *testing.T, in Input, o Options) string {
	t.Helper()
	var b strings.Builder
	if err := Figure(in, o).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	whole := b.String()
	for _, part := range Parts(in, o) {
		var pb strings.Builder
		if err := part.Component.Render(context.Background(), &pb); err != nil {
			t.Fatal(err)
		}
		if pb.Len() > 0 {
			whole = strings.Replace(whole, pb.String(), "<"+part.ID+">", 1)
		}
	}
	return whole
}

// translateX reads x from a transform "translate(x y)".
func translateX(t *testing.T, transform string) float64 {
	t.Helper()
	f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(transform, "translate("), ")"))
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil || len(f) != 2 {
		t.Fatalf("transform %q", transform)
	}
	return x
}

// TestVeilFadesLaterMarksWithoutRedrawingThem: with the clock jumped back
// to 20 s, the car park's requests at 25 s and later are drawn faded, by
// the lane's veil, whose edge is right of the clock's line and clear of a
// mark at the clock, and left of the next request; every mark is drawn
// through it. As the clock moves on to 30 s past two of them, nothing
// changes in the lane but its moving parts, in every policy's lane and
// with the marks drawn compactly too; at 40 s, after every request, the
// veil fades nothing, and stays put as the clock moves on.
func TestVeilFadesLaterMarksWithoutRedrawingThem(t *testing.T) {
	at20, at30, at40, at45 := carParkAt(t, 20_000), carParkAt(t, 30_000), carParkAt(t, 40_000), carParkAt(t, 45_000)
	for i, l := range at20.Lanes {
		in := FromView(at20, l)
		doc := render(t, in, Options{})
		veil := doc.Find("mask#" + l.ID + "-later")
		if veil.Find("rect.after-clock.future").Length() != 1 {
			t.Errorf("%s at 20 s: the veil fades nothing, with requests after the clock", l.Policy)
		}
		edge := translateX(t, veil.Find(".later-edge").AttrOr("transform", ""))
		now := translateX(t, doc.Find(".now").AttrOr("transform", ""))
		next := translateX(t, doc.Find(`.mark[data-index="3"]`).AttrOr("transform", "")) // at 25 s
		if edge < now+markSize/2 || edge > next-markSize/2 {
			t.Errorf("%s at 20 s: the veil's edge at %.1f, want between the clock's line (%.1f) and a mark's half clear of it, and the request at 25 s (%.1f)", l.Policy, edge, now, next)
		}
		if n, through := doc.Find(".mark").Length(), doc.Find(`g[mask="url(#`+l.ID+`-later)"] .mark`).Length(); n != 8 || through != n {
			t.Errorf("%s: %d of %d marks drawn through the veil, want all 8", l.Policy, through, n)
		}
		if FromView(at30, at30.Lanes[i]).Now != 30_000 {
			t.Fatal("the clock did not move to 30 s")
		}
		for _, o := range []Options{{}, {SelectURL: "/play/x/select"}} {
			if withoutParts(t, in, o) != withoutParts(t, FromView(at30, at30.Lanes[i]), o) {
				t.Errorf("%s: moving the clock from 20 s to 30 s past two requests changes more than the lane's moving parts", l.Policy)
			}
		}
		late := render(t, FromView(at40, at40.Lanes[i]), Options{})
		if late.Find("rect.after-clock.future").Length() != 0 {
			t.Errorf("%s at 40 s: the veil fades what is after the clock, with no request there", l.Policy)
		}
		// With nothing to fade the veil stays put as the clock moves, so
		// that the browser need not paint the marks again.
		later := render(t, FromView(at45, at45.Lanes[i]), Options{})
		if a, b := late.Find(".later-edge").AttrOr("transform", ""), later.Find(".later-edge").AttrOr("transform", ""); a != b {
			t.Errorf("%s: with no request after the clock, the veil moves from %s at 40 s to %s at 45 s", l.Policy, a, b)
		}
	}

	// Drawn compactly (more than IndividualMarks requests), the same.
	dense := func(now int64) Input {
		v := carParkAt(t, now)
		in := laneOf(t, v, policies.SlidingLog)
		var marks []play.Mark
		for i := range IndividualMarks + 10 {
			marks = append(marks, play.Mark{Index: i, At: int64(i) * 1000, Allowed: i%3 != 0, Level: 1, Future: int64(i)*1000 > now})
		}
		in.Marks = marks
		return in
	}
	a, b := dense(20_500), dense(30_500)
	if withoutParts(t, a, Options{}) != withoutParts(t, b, Options{}) {
		t.Error("drawn compactly, moving the clock past ten requests changes more than the lane's moving parts")
	}
	if doc := render(t, a, Options{}); doc.Find(`g[mask="url(#`+a.ID+`-later)"] .dense-admitted`).Length() != 1 {
		t.Error("the compact marks are not drawn through the veil")
	}
}
