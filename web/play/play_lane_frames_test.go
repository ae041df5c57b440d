package play

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
)

// longLanes is TestBrowserLaneLongTasks's scenario: the first seven
// registered policies, each lane 2,000 requests (one every 5 ms, limit
// 100 per 12 s).
func longLanes() scenario.Scenario {
	sc := scenario.Scenario{Limit: 100, WindowMs: 12_000} // a multiple of sliding-buckets' 6
	for _, in := range policies.Registered() {
		if len(sc.Policies) < 7 {
			sc.Policies = append(sc.Policies, scenario.PolicySpec{Name: in.Name})
		}
	}
	for i := range 2000 {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(i) * 5, Key: "default", Cost: 1, Count: 1})
	}
	return sc
}

// TestLongLanesPlayingSendFewWholeLanes is what the browser's long tasks
// come from, counted without a browser and on a testing/synctest clock, so
// that no load changes it: seven lanes of 2,000 requests play for four
// seconds from 9 s (as TestBrowserLaneLongTasks plays them: the clock
// passes the last requests, at up to 10 s, and the fitted span steps) and
// from 23.5 s (the first requests leave the look-back one by one). A frame
// sends a lane whole, some 250 elements for the browser to morph, only
// when the span it shows changed; else only its moving parts (lane.Parts).
// It logs each part of the stream's weight.
func TestLongLanesPlayingSendFewWholeLanes(t *testing.T) {
	for _, start := range []int64{9000, 23_500} {
		t.Run(fmt.Sprintf("from %d ms", start), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sc := longLanes()
				store := play.NewStore(nil) // time.Now: the bubble's clock
				sess := webtest.NewLive(t, store, sc)
				if err := sess.Jump(start); err != nil {
					t.Fatal(err)
				}
				w, stop := bubbleStream(t, Playground(store), "/play/"+sess.ID()+"/stream")
				defer stop()
				first := len(w.Events(t))
				if err := sess.Do(func(s *play.Session) error { return s.Play() }); err != nil {
					t.Fatal(err)
				}
				<-time.After(4 * time.Second) // the bubble's seconds: no wall time passes
				synctest.Wait()
				if err := sess.Do(func(s *play.Session) error { return s.Pause() }); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				frames, whole, wholeBytes, partBytes := 0, 0, 0, 0
				for _, ev := range w.Events(t)[first:] {
					html := strings.Join(ev.Data, "\n")
					switch {
					case strings.Contains(html, `data-testid="clock"`):
						frames++
					case strings.Contains(html, `<figure id="lane-0"`):
						whole++
						fallthrough
					case strings.Contains(html, `<figure id="lane-`):
						wholeBytes += len(html)
					default:
						partBytes += len(html)
					}
				}
				// The spans the frames showed: a clock moving 100 ms a frame.
				steps := 0
				from, to := play.Zoom{}.ViewSpan(sc, start)
				for now := start; now <= start+4000; now += web.UpdateInterval.Milliseconds() {
					if f, tt := (play.Zoom{}).ViewSpan(sc, now); f != from || tt != to {
						steps, from, to = steps+1, f, tt
					}
				}
				t.Logf("%d frames: %d sent the lanes whole (%d KB), the rest their moving parts (%d KB, %.1f KB a frame); the span stepped %d times",
					frames, whole, wholeBytes>>10, partBytes>>10, float64(partBytes)/1024/float64(max(frames-whole, 1)), steps)
				if frames < 30 {
					t.Fatalf("%d frames in 4 s of play, want 40", frames)
				}
				if whole > steps {
					t.Errorf("%d of %d frames sent the lanes whole, and the span stepped %d times: a lane goes whole only when its span changed", whole, frames, steps)
				}
			})
		})
	}
}
