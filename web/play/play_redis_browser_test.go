package play

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// redisLane is what a browser sees of one lane and its Redis row.
type redisLane struct {
	Label  string   `json:"label"`
	Go     []string `json:"go"`    // each Go mark: its request's index and outcome
	Redis  []string `json:"redis"` // each Redis mark, likewise
	Differ int      `json:"differ"`
	Status string   `json:"status"`
}

const redisLanesJS = `[...document.querySelectorAll('[data-testid=lane]')].map(l => {
	const marks = sel => [...l.querySelectorAll(sel)].map(m => m.dataset.index + ':' + (m.classList.contains('admitted') ? 'admitted' : 'refused'));
	const status = l.querySelector('[data-testid=redis-status]');
	return {label: l.dataset.label, go: marks('g.mark'), redis: marks('g.redis-mark'),
		differ: l.querySelectorAll('.redis-differs').length, status: status ? status.innerText : ''};
})`

// waitRedisLanes waits until every lane's Redis row satisfies ok, and
// fails with what the lanes last showed otherwise.
func waitRedisLanes(t *testing.T, tab *browsertest.Tab, what string, ok func(redisLane) bool) []redisLane {
	t.Helper()
	got, done := browsertest.Until(tab, redisLanesJS, func(got []redisLane) bool {
		all := len(got) > 0
		for _, l := range got {
			all = all && ok(l)
		}
		return all
	})
	if done {
		return got
	}
	t.Fatalf("waiting for every lane's Redis row to show %s; the lanes show\n%+v", what, got)
	return nil
}

// The playground with a Redis mirror: each Go lane has a Redis row beneath
// it deciding the same requests alike; once Redis stops, the rows say
// "Redis unavailable" in words and the rest of the page keeps working.
func TestBrowserPlayRedisLaneBesideItsGoLane(t *testing.T) {
	srv := redistest.Start(t)
	_, url, _ := newTestServer(t, PlaygroundWith(play.NewStore(nil), Options{Redis: newMirror(t, srv)}))
	// The four lanes a scenario without lanes gets (a new /play's seven
	// include the leaky bucket, whose queue admits all six below).
	four := scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: scenario.DefaultPolicies()}
	tab := openPlay(t, url+scenario.EncodeURL(four))
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur(), true)`))

	// Six requests at 0 s against 5 per 30 s: five admitted, one refused.
	for i := range 6 {
		pressKey(tab, "f")
		waitCount(t, tab, i+1)
	}
	lanes := waitRedisLanes(t, tab, "6 decisions as in Go", func(l redisLane) bool {
		return l.Status == "Redis: 6 decisions, all as in Go." && len(l.Go) == 6 && reflect.DeepEqual(l.Go, l.Redis)
	})
	if want := len(four.Policies); len(lanes) != want {
		t.Fatalf("%d lanes, want the scenario's %d", len(lanes), want)
	}
	for _, l := range lanes {
		if l.Differ != 0 {
			t.Errorf("lane %s: %d marks say Redis differs", l.Label, l.Differ)
		}
		if !strings.HasSuffix(l.Go[5], ":refused") || strings.Count(strings.Join(l.Redis, " "), ":admitted") != 5 {
			t.Errorf("lane %s: Redis marks %v, want five admitted then one refused", l.Label, l.Redis)
		}
	}

	saveFigure(t, tab, "play-redis.png")

	srv.Stop()
	pressKey(tab, "f")
	waitCount(t, tab, 7) // the Go lanes draw the request
	waitRedisLanes(t, tab, "Redis unavailable", func(l redisLane) bool {
		return strings.HasPrefix(l.Status, "Redis unavailable: the server cannot reach Redis") && len(l.Redis) == 0 && len(l.Go) == 7
	})
	// The rest of the page still works: the clock steps, the summary
	// counts the request.
	pressKey(tab, "s")
	tab.WaitText(`[data-testid="clock"]`, "1 s")
	tab.WaitText(`[data-testid="summary"]`, fmt.Sprint(7, " requests"))
	tab.NoProblems()
}
