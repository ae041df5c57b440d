package play

import (
	"errors"
	"net/url"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/windowlab/playground/scenario"
)

// carPark loads lessons/scenarios/car-park.json, the seeds' car park.
func carPark(t *testing.T) scenario.Scenario {
	t.Helper()
	f, err := os.Open("../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := scenario.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func newSession(t *testing.T, sc scenario.Scenario) *Session {
	t.Helper()
	s, err := NewSession("test", sc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func must(t *testing.T, step string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

// fireCarPark drives a session the way a visitor does: jump the clock to
// each arrival and fire that many cars.
func fireCarPark(t *testing.T, s *Session) {
	t.Helper()
	for _, a := range []struct{ at, n int64 }{{0, 1}, {5000, 2}, {15000, 2}, {25000, 1}, {35000, 1}, {40000, 3}} {
		must(t, "jump", s.Jump(a.at))
		must(t, "fire", s.Fire(a.n))
	}
}

func TestLanesAgreeWithRunForTheCarPark(t *testing.T) {
	cp := carPark(t)
	s := newSession(t, scenario.Scenario{Limit: cp.Limit, WindowMs: cp.WindowMs, Policies: cp.Policies})
	must(t, "client", s.SelectClient("car-park"))
	fireCarPark(t, s)
	want, err := scenario.Run(cp)
	if err != nil {
		t.Fatal(err)
	}
	v := s.View()
	if len(v.Lanes) != len(want.Results) {
		t.Fatalf("%d lanes, want %d", len(v.Lanes), len(want.Results))
	}
	for i, lane := range v.Lanes {
		res := want.Results[i]
		if lane.Label != res.Label || lane.Admitted != res.Admitted || lane.Refused != res.Refused {
			t.Errorf("lane %d: %s %d/%d, Run says %s %d/%d", i, lane.Label, lane.Admitted, lane.Refused, res.Label, res.Admitted, res.Refused)
		}
		if len(lane.Marks) != len(res.Decisions) {
			t.Fatalf("lane %d: %d marks, want %d", i, len(lane.Marks), len(res.Decisions))
		}
		for j, m := range lane.Marks {
			d := res.Decisions[j]
			if m.At != d.At || m.Allowed != d.Allowed() || m.Retry != d.Detail.RetryAfterMs {
				t.Errorf("lane %s mark %d: at %d allowed %v retry %d; Run: at %d allowed %v retry %d",
					lane.Label, j, m.At, m.Allowed, m.Retry, d.At, d.Allowed(), d.Detail.RetryAfterMs)
			}
		}
	}
	// The seeds' log table: at 40 s two of three are admitted, the third refused.
	log := v.Lanes[1]
	if got := []bool{log.Marks[7].Allowed, log.Marks[8].Allowed, log.Marks[9].Allowed}; !reflect.DeepEqual(got, []bool{true, true, false}) {
		t.Errorf("sliding-log at 40 s: %v, the lesson says admit, admit, refuse", got)
	}
	if v.Disagreements == 0 {
		t.Error("no disagreements marked, but the car park's lanes differ")
	}
}

func TestSameActionsGiveTheSameTimeline(t *testing.T) {
	act := func() View {
		s := newSession(t, DefaultScenario())
		must(t, "fire", s.Fire(3))
		must(t, "poisson", s.FirePattern(Pattern{Kind: Poisson, Count: 40, SpanMs: 60_000}))
		must(t, "step", s.Step(1000))
		must(t, "straddle", s.FirePattern(Pattern{Kind: Straddle, Count: 10}))
		must(t, "poisson", s.FirePattern(Pattern{Kind: Poisson, Count: 40, SpanMs: 60_000}))
		v := s.View()
		v.ID = ""
		return v
	}
	a, b := act(), act()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two sessions given the same actions show different timelines")
	}
	if a.Total != 93 {
		t.Errorf("total %d, want 93", a.Total)
	}
}

func TestClock(t *testing.T) {
	s := newSession(t, DefaultScenario())
	steps := []struct {
		name string
		do   func() error
		want int64
	}{
		{"step 100 ms", func() error { return s.Step(100) }, 100},
		{"step 1 s", func() error { return s.Step(1000) }, 1100},
		{"step a window", s.StepWindow, 31100},
		{"jump back", func() error { return s.Jump(5000) }, 5000},
		{"tick while paused", func() error { s.Tick(time.Second); return nil }, 5000},
		{"play", s.Play, 5000},
		{"tick 1 s at 1×", func() error { s.Tick(time.Second); return nil }, 6000},
		{"16×", func() error { return s.SetSpeed(FastestSpeed) }, 6000},
		{"tick 0.5 s at 16×", func() error { s.Tick(500 * time.Millisecond); return nil }, 14000},
		{"0.25×", func() error { return s.SetSpeed(QuarterSpeed) }, 14000},
		{"tick 1 ms at 0.25×", func() error { s.Tick(time.Millisecond); return nil }, 14000},
		{"3 more ticks of 1 ms", func() error { s.Tick(time.Millisecond); s.Tick(time.Millisecond); s.Tick(time.Millisecond); return nil }, 14001},
		{"reset", s.Reset, 0},
	}
	for i, st := range steps {
		must(t, st.name, st.do())
		if got := s.Now(); got != st.want {
			t.Fatalf("step %d (%s): clock %d, want %d", i, st.name, got, st.want)
		}
	}
	if s.Playing() {
		t.Error("reset left the clock playing")
	}
	// Two streams ticking the same session move it once by the real time.
	must(t, "speed", s.SetSpeed(RealSpeed))
	must(t, "play", s.Play())
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.TickAt(wall)
	s.TickAt(wall.Add(100 * time.Millisecond))
	s.TickAt(wall.Add(100 * time.Millisecond))
	s.TickAt(wall.Add(250 * time.Millisecond))
	if got := s.Now(); got != 250 {
		t.Errorf("after 250 ms of real time ticked by two streams: clock %d, want 250", got)
	}
	if err := s.SetSpeed(3); err == nil {
		t.Error("speed 3 accepted")
	}
}

func TestFireAfterJumpBackInsertsAtTheClock(t *testing.T) {
	s := newSession(t, DefaultScenario())
	must(t, "jump", s.Jump(10_000))
	must(t, "fire", s.Fire(1))
	must(t, "jump", s.Jump(2000))
	must(t, "fire", s.Fire(1))
	sc := s.Scenario()
	if sc.Requests[0].At != 2000 || sc.Requests[1].At != 10_000 {
		t.Fatalf("requests %+v, want sorted 2000 then 10000", sc.Requests)
	}
	v := s.View()
	if v.Lanes[0].NextKnown {
		t.Error("a what-if was computed with the clock before the last request")
	}
	if m := v.Lanes[0].Marks[1]; !m.Future {
		t.Error("the request after the clock is not marked as in the future")
	}
}

func TestRequestCap(t *testing.T) {
	s := newSession(t, DefaultScenario())
	for range MaxRequests / MaxBurst {
		must(t, "burst", s.Fire(MaxBurst))
	}
	before := s.Version()
	err := s.Fire(1)
	var errs scenario.Errors
	if !errors.As(err, &errs) || errs.Field("count") == "" {
		t.Fatalf("firing past the cap: %v, want an error naming count", err)
	}
	if s.Version() != before || s.View().Total != MaxRequests {
		t.Error("a refused action changed the session")
	}
}

func TestInvalidSettingsChangeNothing(t *testing.T) {
	s := newSession(t, DefaultScenario())
	must(t, "fire", s.Fire(2))
	for _, c := range []struct {
		st    Settings
		field string
	}{
		{Settings{Limit: 0, WindowMs: 1000, Policies: scenario.DefaultPolicies()}, "limit"},
		{Settings{Limit: 5, WindowMs: 0, Policies: scenario.DefaultPolicies()}, "windowMs"},
		{Settings{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{{Name: "leaky"}}}, "policies[0].name"},
		{Settings{Limit: 5, WindowMs: 1000}, "policies"},
		{Settings{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{{Name: "sliding-buckets", Buckets: 7}}}, "policies[0]"},
	} {
		before := s.Scenario()
		err := s.Apply(c.st)
		var errs scenario.Errors
		if !errors.As(err, &errs) || errs.Field(c.field) == "" {
			t.Errorf("%+v: %v, want an error naming %s", c.st, err, c.field)
		}
		if !reflect.DeepEqual(s.Scenario(), before) {
			t.Errorf("%+v changed the scenario", c.st)
		}
	}
}

func TestPatterns(t *testing.T) {
	const w = 30_000
	for _, c := range []struct {
		p     Pattern
		check func([]int64) bool
	}{
		{Pattern{Kind: Steady, Count: 4, SpanMs: 8000}, func(ts []int64) bool { return reflect.DeepEqual(ts, []int64{1000, 3000, 5000, 7000}) }},
		{Pattern{Kind: Straddle, Count: 4}, func(ts []int64) bool { return reflect.DeepEqual(ts, []int64{29700, 29700, 30300, 30300}) }},
		{Pattern{Kind: FrontLoaded, Count: 3, SpanMs: w}, func(ts []int64) bool { return all(ts, func(t int64) bool { return t >= 1000 && t%w < 3000 }) }},
		{Pattern{Kind: EndLoaded, Count: 3, SpanMs: w}, func(ts []int64) bool { return all(ts, func(t int64) bool { return t%w >= 27000 }) }},
		{Pattern{Kind: Poisson, Count: 100, SpanMs: 100_000}, func(ts []int64) bool { return ts[0] >= 1000 && ts[99] > 50_000 && ts[99] < 200_000 }},
	} {
		ts, err := c.p.times(1000, w, 1)
		if err != nil || !c.check(ts) {
			t.Errorf("%+v: %v %v", c.p, ts, err)
		}
	}
	if _, err := (Pattern{Kind: "zigzag", Count: 1, SpanMs: 1}).times(0, w, 1); err == nil {
		t.Error("unknown pattern accepted")
	}
}

func TestURLRoundTrip(t *testing.T) {
	cp := carPark(t)
	link := EncodeURL(cp)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/play" {
		t.Errorf("path %q", u.Path)
	}
	got, err := DecodeURL(u.Query())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cp) {
		t.Errorf("round trip: %+v, want %+v", got, cp)
	}
	// Hand-written JSON links work too.
	if _, err := DecodeParam(`{"limit":2,"windowMs":1000,"requests":[{"at":5}]}`); err != nil {
		t.Errorf("JSON link: %v", err)
	}
}

func TestMalformedLinks(t *testing.T) {
	good := EncodeParam(carPark(t))
	for _, s := range []string{"", "%%%", good[:len(good)/2], "AAAA", `{"limit":0,"windowMs":1000}`, `{"limit":`} {
		_, err := DecodeParam(s)
		var errs scenario.Errors
		if !errors.As(err, &errs) {
			t.Errorf("DecodeParam(%q) = %v, want scenario.Errors", s, err)
		}
	}
	if _, err := DecodeURL(url.Values{}); err == nil {
		t.Error("a link without s decoded")
	}
}

func TestStoreBounds(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := NewStoreWithBounds(clock, 2, time.Minute)
	a, err := st.New(scenario.Scenario{})
	must(t, "new a", err)
	b, err := st.New(scenario.Scenario{})
	must(t, "new b", err)
	if a.ID() == b.ID() || len(a.ID()) < 20 {
		t.Errorf("ids %q and %q: want distinct and long", a.ID(), b.ID())
	}
	if _, err := st.New(scenario.Scenario{}); !errors.Is(err, ErrFull) {
		t.Fatalf("third session: %v, want ErrFull", err)
	}
	now = now.Add(50 * time.Second)
	_, err = st.Get(a.ID()) // a is used; b idles
	must(t, "get a", err)
	_, unsub := b.Subscribe() // a watched session never idles out
	now = now.Add(50 * time.Second)
	if st.Len() != 2 {
		t.Errorf("after 100 s: %d sessions, want 2 (b is watched)", st.Len())
	}
	unsub()
	if st.Len() != 1 {
		t.Errorf("b unwatched: %d sessions, want 1", st.Len())
	}
	if _, err := st.Get(b.ID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("idle session: %v, want ErrNotFound", err)
	}
	c, err := st.New(scenario.Scenario{})
	if err != nil {
		t.Errorf("after eviction: %v", err)
	}
	// Full again: the least recently used unwatched session, idle for a
	// minute, makes room; a watched one never does.
	_, unwatch := c.Subscribe()
	defer unwatch()
	now = now.Add(2 * time.Minute)
	if _, err := st.New(scenario.Scenario{}); err != nil {
		t.Fatalf("full store with an abandoned session: %v", err)
	}
	if _, err := st.Get(a.ID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("a, idle and unwatched, was kept: %v", err)
	}
	if _, err := st.Get(c.ID()); err != nil {
		t.Errorf("c, watched, was evicted: %v", err)
	}
}

func TestSubscribersAreNotified(t *testing.T) {
	s := newSession(t, DefaultScenario())
	ch1, stop1 := s.Subscribe()
	ch2, stop2 := s.Subscribe()
	defer stop2()
	must(t, "fire", s.Fire(1))
	must(t, "fire", s.Fire(1)) // folded into the pending notice
	for i, ch := range []<-chan struct{}{ch1, ch2} {
		select {
		case <-ch:
		default:
			t.Errorf("subscriber %d not notified", i)
		}
	}
	stop1()
	if s.Subscribers() != 1 {
		t.Errorf("%d subscribers, want 1", s.Subscribers())
	}
}

func TestExplainTheCounter(t *testing.T) {
	s := newSession(t, scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{{Name: "sliding-counter", Arithmetic: "exact"}}})
	must(t, "fire", s.Fire(5))
	must(t, "jump", s.Jump(35_000))
	must(t, "fire", s.Fire(1))
	must(t, "select", s.Select(5))
	v := s.View()
	e := v.Selected.Lanes[0]
	if e.Decision.Allowed {
		t.Fatal("the lesson's 35 s request was admitted")
	}
	want := "carried = previous × (window − elapsed) ÷ window = 5 × 25000 ÷ 30000 = 25/6 ≈ 4.17 (exact)"
	if e.Steps[1] != want {
		t.Errorf("step %q, want %q", e.Steps[1], want)
	}
	hs := map[string]string{}
	for _, h := range e.Headers {
		hs[h.Name] = h.Value
	}
	if hs["Status"] != "429 Too Many Requests" || hs["Retry-After"] == "" || hs["RateLimit-Policy"] != `"sliding-counter";q=5;w=30` {
		t.Errorf("headers %v", hs)
	}
}

func all(ts []int64, ok func(int64) bool) bool {
	for _, t := range ts {
		if !ok(t) {
			return false
		}
	}
	return len(ts) > 0
}
