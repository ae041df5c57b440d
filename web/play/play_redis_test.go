package play

import (
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/onredis"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// newMirror is a Redis mirror on srv, with serve's client.
func newMirror(t *testing.T, srv *redistest.Server) *onredis.Mirror {
	t.Helper()
	rdb := onredis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return onredis.NewMirror(rdb, slog.New(slog.DiscardHandler))
}

// carParkEveryPolicy is the car park's ten cars in a lane of every policy
// the registry lists.
func carParkEveryPolicy() scenario.Scenario {
	sc := scenario.Scenario{Limit: 5, WindowMs: 30_000}
	for _, name := range policies.Names {
		sc.Policies = append(sc.Policies, scenario.PolicySpec{Name: name})
	}
	for _, a := range webtest.CarParkArrivals {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(a.Sec) * 1000, Key: "car-park", Cost: 1, Count: int64(a.Cars)})
	}
	return sc
}

// markOutcomes are the marks' indexes and outcomes, in order.
func markOutcomes(s *goquery.Selection) []string {
	var out []string
	s.Each(func(_ int, m *goquery.Selection) {
		out = append(out, m.AttrOr("data-index", "?")+":"+map[bool]string{true: "admitted", false: "refused"}[m.HasClass("admitted")])
	})
	return out
}

// checkRedisRows fails unless every lane of doc has a Redis row whose marks
// are the Go lane's, decided alike, and whose line says so; a lane whose
// policy has no Redis form says that instead, in words.
func checkRedisRows(t *testing.T, doc *goquery.Document, sc scenario.Scenario, decided int) {
	t.Helper()
	lanes := doc.Find("[data-testid=lane]")
	if lanes.Length() != len(sc.Policies) {
		t.Fatalf("%d lanes, want %d", lanes.Length(), len(sc.Policies))
	}
	lanes.Each(func(i int, l *goquery.Selection) {
		label := l.AttrOr("data-label", "?")
		row := l.Find("[data-testid=redis-lane]")
		status := strings.TrimSpace(row.Find("[data-testid=redis-status]").Text())
		if row.Length() != 1 {
			t.Errorf("lane %s: %d Redis rows, want 1", label, row.Length())
			return
		}
		if !slices.Contains(limiter.RedisNames(), sc.Policies[i].Name) {
			if !strings.HasPrefix(status, "Redis: no Redis form (") || row.Find(".redis-mark").Length() != 0 {
				t.Errorf("lane %s without a Redis form: %q with %d marks", label, status, row.Find(".redis-mark").Length())
			}
			return
		}
		goMarks, redisMarks := markOutcomes(l.Find("g.mark")), markOutcomes(row.Find("g.redis-mark"))
		if len(goMarks) != decided || !slices.Equal(goMarks, redisMarks) {
			t.Errorf("lane %s: Go marks %v, Redis marks %v; want %d alike", label, goMarks, redisMarks, decided)
		}
		if n := row.Find(".redis-differs").Length(); n != 0 {
			t.Errorf("lane %s: %d marks say Redis differs", label, n)
		}
		if want := "Redis: " + strconv.Itoa(decided) + " decisions, all as in Go."; status != want {
			t.Errorf("lane %s: Redis line %q, want %q", label, status, want)
		}
	})
}

func TestPlayRedisRowUnderEachLane(t *testing.T) {
	srv := redistest.Start(t)
	mirror := newMirror(t, srv)
	_, base, _ := newTestServer(t, PlaygroundWith(play.NewStore(nil), Options{Redis: mirror}))
	sc := carParkEveryPolicy()
	res := get(t, base+scenario.EncodeURL(sc))
	if res.status != http.StatusOK {
		t.Fatalf("GET the link: status %d", res.status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	checkRedisRows(t, doc, sc, 10)

	// Without a mirror the page is as it always was.
	_, plain, _ := newTestServer(t, Playground(play.NewStore(nil)))
	if body := get(t, plain+scenario.EncodeURL(sc)).body; strings.Contains(body, "redis-lane") {
		t.Error("a playground without Redis draws Redis rows")
	}
}

// When Redis goes away, the next change's lanes say "Redis unavailable" in
// words, and the rest of the update is as without Redis: the fired request
// is drawn in every Go lane.
func TestPlayRedisUnavailableKeepsThePageWorking(t *testing.T) {
	srv := redistest.Start(t)
	mirror := newMirror(t, srv)
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, PlaygroundWith(store, Options{Redis: mirror}))
	sess := webtest.CarParkSession(t, store, 45)
	base := url + "/play/" + sess.ID()
	stream := openStream(t, base+"/stream")
	checkRedisRows(t, fragments(t, stream.until(t, "play-share")), sess.Scenario(), 10)

	srv.Stop()
	if res := post(t, base+"/fire", `{"cost": 1}`, sess); res.status != http.StatusOK {
		t.Fatalf("fire with Redis gone: %d %s", res.status, res.body)
	}
	doc := fragments(t, stream.until(t, "play-share"))
	lanes := doc.Find("[data-testid=lane]")
	if want := len(sess.Scenario().Policies); lanes.Length() != want {
		t.Fatalf("the update holds %d lanes, want the session's %d", lanes.Length(), want)
	}
	lanes.Each(func(i int, l *goquery.Selection) {
		if n := l.Find("g.mark").Length(); n != 11 {
			t.Errorf("lane %d draws %d requests, want 11", i, n)
		}
		status := strings.TrimSpace(l.Find("[data-testid=redis-status]").Text())
		if !strings.HasPrefix(status, "Redis unavailable: ") || l.Find(".redis-mark").Length() != 0 {
			t.Errorf("lane %d: Redis line %q with %d marks, want Redis unavailable and none", i, status, l.Find(".redis-mark").Length())
		}
	})
}

// fragments joins the HTML the events merge into one document.
func fragments(t *testing.T, events []webtest.Event) *goquery.Document {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		for _, line := range ev.Data {
			// "fragments" in Datastar's RC events, "elements" in 1.0's.
			for _, field := range []string{"fragments ", "elements "} {
				if html, ok := strings.CutPrefix(line, field); ok {
					b.WriteString(html + "\n")
				}
			}
		}
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
