package lane

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// workedQueue is nginx's worked example: 1 per second (written 5 per 5 s,
// so that the view's three windows hold every departure), a queue of 5,
// eight requests at 0 s, the clock at 7 s.
func workedQueue(t *testing.T) play.View {
	t.Helper()
	sc := scenario.Scenario{Limit: 5, WindowMs: 5000,
		Policies: []scenario.PolicySpec{{Name: policies.LeakyBucket, Burst: 5}},
		Requests: []scenario.Request{{At: 0, Key: "default", Cost: 1, Count: 8}}}
	sess, err := play.NewStore(nil).New(scenario.Scenario{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Load(sc); err != nil {
		t.Fatal(err)
	}
	if err := sess.Jump(7_000); err != nil {
		t.Fatal(err)
	}
	return sess.View()
}

// TestLeakyBucketDrawsEachWait: the five queued requests each get a bar
// from their arrival to arrival + wait (1 to 5 s), as long as that wait
// on the time axis, with the wait in its title; the one served at once and
// the two refused get none.
func TestLeakyBucketDrawsEachWait(t *testing.T) {
	in := laneOf(t, workedQueue(t), policies.LeakyBucket)
	doc := render(t, in, Options{})
	p := newPlot(in, Options{})
	bars := doc.Find(`[data-testid="wait"]`)
	if bars.Length() != 5 {
		t.Fatalf("%d wait bars, want 5 (requests 2 to 6)", bars.Length())
	}
	bars.Each(func(i int, g *goquery.Selection) {
		line := g.Find("line")
		x1, _ := strconv.ParseFloat(line.AttrOr("x1", ""), 64)
		x2, _ := strconv.ParseFloat(line.AttrOr("x2", ""), 64)
		wait := int64(i+1) * 1000
		if want := p.X(wait) - p.X(0); math.Abs(x2-x1-want) > 0.5 {
			t.Errorf("bar %d: %.1f units long, want %.1f (a wait of %d ms)", i, x2-x1, want, wait)
		}
		title := g.Find("title").Text()
		if want := "request " + strconv.Itoa(i+2) + " arrives at 0 s, waits " + strconv.FormatInt(wait/1000, 10) + " s, leaves at " + scenario.FormatMs(wait); title != want {
			t.Errorf("bar %d: title %q, want %q", i, title, want)
		}
	})
	if n := doc.Find(".wait-level").Length(); n != 1 {
		t.Errorf("%d queue levels drawn, want 1", n)
	}
	desc := doc.Find("desc").Text()
	if !strings.Contains(desc, "6 admitted, 2 refused") {
		t.Errorf("text alternative %q does not count the queue's decisions", desc)
	}
	if n := render(t, in, Options{Asked: true, Cut: 2500}).Find(`[data-testid="wait"]`).Length(); n != 2 {
		t.Errorf("while asked at 2.5 s: %d waits drawn, want the 2 that ended by then", n)
	}
}
