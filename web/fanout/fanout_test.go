package fanout

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// join starts (or joins) the hub of "s" with one follower of view v.
func join(t *testing.T, hs *Hubs[int], v int) (*Hub, func()) {
	t.Helper()
	fl, err := hs.Join(context.Background(), "s", JoinOptions[int]{View: v, Views: 2,
		Start: func(context.Context, *Hub) (int, error) { return 0, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return fl.Hub, fl.Leave
}

func TestPublishFramesCarryWhatChanged(t *testing.T) {
	var hs Hubs[int]
	h, leave := join(t, &hs, 0)
	defer leave()
	lanes := func(n int, text string) []Region {
		rs := []Region{{ID: "clock", HTML: `<p id="clock">` + text + `</p>`}, {ID: "list", HTML: `<div id="list">all</div>`, Full: true}}
		for i := range n {
			id := string(rune('a' + i))
			rs = append(rs, Region{ID: id, HTML: `<i id="` + id + `"></i>`, In: "#list"})
		}
		return rs
	}
	steps := []struct {
		views     [][]Region
		version   uint64
		full      []string // substrings of the full frame, in order
		delta     []string
		notInFull []string
	}{
		{[][]Region{lanes(2, "1"), nil}, 1, []string{`id="clock">1`, `id="list">all`}, nil, []string{`id="a"`}},
		// Only the clock changed: the lanes are not sent again.
		{[][]Region{lanes(2, "2"), nil}, 2, nil, []string{`id="clock">2`}, nil},
		// Nothing changed: no frame.
		{[][]Region{lanes(2, "2"), nil}, 2, nil, []string{`id="clock">2`}, nil},
		// A third lane is appended to its list, then two are removed.
		{[][]Region{lanes(3, "2"), nil}, 3, nil, []string{"selector #list", "mergeMode append", `id="c"`}, nil},
		{[][]Region{lanes(1, "2"), nil}, 4, nil, []string{"datastar-remove-fragments", "selector #b", "selector #c"}, nil},
	}
	for i, s := range steps {
		if err := h.Publish(s.views); err != nil {
			t.Fatal(err)
		}
		fr, _, _ := h.latest(0)
		if fr.version != s.version {
			t.Fatalf("step %d: version = %d, want %d", i+1, fr.version, s.version)
		}
		for _, c := range []struct {
			name string
			raw  string
			want []string
		}{{"full", string(fr.full.raw), s.full}, {"delta", string(fr.delta.raw), s.delta}} {
			at := 0
			for _, w := range c.want {
				j := strings.Index(c.raw[at:], w)
				if j < 0 {
					t.Errorf("step %d: the %s frame lacks %q (in order) in %q", i+1, c.name, w, c.raw)
					break
				}
				at += j
			}
		}
		for _, w := range s.notInFull {
			if strings.Contains(string(fr.full.raw), w) {
				t.Errorf("step %d: the full frame holds %q, which its list carries", i+1, w)
			}
		}
		if i > 0 && strings.Contains(string(fr.delta.raw), `id="list"`) {
			t.Errorf("step %d: an update sent the Full list", i+1)
		}
	}
	if fr, _, _ := h.latest(1); fr.full != nil {
		t.Error("a view never rendered has a frame")
	}
}

// A view that loses its last follower drops its frame: the next follower
// waits for a frame rendered for it, which Publish makes though nothing
// changed.
func TestUnfollowedViewWaitsForAFreshFrame(t *testing.T) {
	var hs Hubs[int]
	h, leave := join(t, &hs, 0)
	defer leave()
	_, leave1 := join(t, &hs, 1)
	views := [][]Region{{{ID: "x", HTML: `<p id="x"></p>`}}, {{ID: "x", HTML: `<p id="x"></p>`}}}
	if err := h.Publish(views); err != nil {
		t.Fatal(err)
	}
	leave1()
	if fr, _, _ := h.latest(1); fr.full != nil {
		t.Fatal("view 1 kept its frame with no follower")
	}
	if h.Followers(1) != 0 || h.Followers(0) != 1 {
		t.Fatalf("followers = %d, %d, want 1, 0", h.Followers(0), h.Followers(1))
	}
	if err := h.Publish(views); err != nil {
		t.Fatal(err)
	}
	if fr, _, _ := h.latest(1); fr.full == nil || fr.version != 2 {
		t.Errorf("view 1 after a render: version %d, frame %v; want 2 and a frame", fr.version, fr.full != nil)
	}
	if fr, _, _ := h.latest(0); fr.version != 1 {
		t.Errorf("view 0, unchanged, got version %d, want 1", fr.version)
	}
}

func TestHubsStartOnceStopAtLastLeave(t *testing.T) {
	var hs Hubs[int]
	starts := 0
	var ctxs []context.Context
	start := func(ctx context.Context, _ *Hub) (int, error) {
		starts++
		ctxs = append(ctxs, ctx)
		return starts, nil
	}
	full := errors.New("full")
	refuse := func(h *Hub, _ int) error {
		if h.Followers(0) >= 2 {
			return full
		}
		return nil
	}
	j := func() (*Hub, func(), error) {
		fl, err := hs.Join(context.Background(), "s", JoinOptions[int]{View: 0, Views: 1, Start: start, Admit: refuse})
		return fl.Hub, fl.Leave, err
	}
	h1, l1, _ := j()
	h2, l2, _ := j()
	if _, _, err := j(); !errors.Is(err, full) {
		t.Fatalf("third follower: err = %v, want the refusal", err)
	}
	if h1 != h2 || starts != 1 || h1.Followers(0) != 2 {
		t.Fatalf("two followers: same hub %v, %d starts, %d followers; want true, 1, 2", h1 == h2, starts, h1.Followers(0))
	}
	if st, ok := hs.State("s"); !ok || st != 1 {
		t.Errorf("State = %d, %v, want 1, true", st, ok)
	}
	l1()
	l1() // twice counts once
	if ctxs[0].Err() != nil {
		t.Fatal("the hub stopped with a follower left")
	}
	l2()
	if ctxs[0].Err() == nil {
		t.Error("the hub's context outlived its last follower")
	}
	if _, ok := hs.State("s"); ok {
		t.Error("a hub with no follower is still listed")
	}
	// An ended hub is not joined: the next follower starts another.
	h3, l3, _ := j()
	defer l3()
	h3.End()
	h4, l4, _ := j()
	defer l4()
	if h4 == h3 || starts != 3 {
		t.Errorf("after End: same hub %v, %d starts; want a new one, 3", h4 == h3, starts)
	}
}

// gatedWriter holds every write until the test lets it through.
type gatedWriter struct {
	header  http.Header
	mu      sync.Mutex
	body    strings.Builder
	gate    chan struct{}
	entered chan struct{} // a write waits at the gate
	wrote   chan struct{}
}

func (g *gatedWriter) Header() http.Header { return g.header }
func (g *gatedWriter) WriteHeader(int)     {}
func (g *gatedWriter) Flush()              {}
func (g *gatedWriter) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.gate
	g.mu.Lock()
	g.body.Write(p)
	g.mu.Unlock()
	g.wrote <- struct{}{}
	return len(p), nil
}

// A follower that falls behind skips to the newest frame, sent whole,
// instead of every frame between; one that keeps up gets the changes.
func TestSlowFollowerSkipsToTheNewest(t *testing.T) {
	var hs Hubs[int]
	h, leave := join(t, &hs, 0)
	defer leave()
	region := func(s string) [][]Region {
		return [][]Region{{{ID: "a", HTML: `<p id="a">` + s + `</p>`}, {ID: "b", HTML: `<p id="b">same</p>`}}}
	}
	if err := h.Publish(region("1")); err != nil {
		t.Fatal(err)
	}
	w := &gatedWriter{header: http.Header{}, gate: make(chan struct{}), entered: make(chan struct{}, 10), wrote: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Follow(context.Background(), w, httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil), 0, 0)
	}()
	let := func() string {
		t.Helper()
		w.gate <- struct{}{}
		select {
		case <-w.wrote:
		case <-time.After(5 * time.Second):
			t.Fatal("no write")
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		out := w.body.String()
		w.body.Reset()
		return out
	}
	if got := let(); !strings.Contains(got, ">1<") || !strings.Contains(got, "same") {
		t.Fatalf("first write %q, want the whole frame 1", got)
	}
	// Frame 2 follows frame 1: only what changed.
	if err := h.Publish(region("2")); err != nil {
		t.Fatal(err)
	}
	if got := let(); !strings.Contains(got, ">2<") || strings.Contains(got, "same") {
		t.Errorf("second write %q, want frame 2's change alone", got)
	}
	// Frames 4 and 5 come while the follower is held writing frame 3: it
	// sends no frame 4, and 5 whole.
	if err := h.Publish(region("3")); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the writes let through so far, and frame 3's
		<-w.entered
	}
	for _, f := range []string{"4", "5"} {
		if err := h.Publish(region(f)); err != nil {
			t.Fatal(err)
		}
	}
	if got := let(); !strings.Contains(got, ">3<") || strings.Contains(got, "same") {
		t.Errorf("third write %q, want frame 3's change alone", got)
	}
	if got := let(); !strings.Contains(got, ">5<") || !strings.Contains(got, "same") {
		t.Errorf("the write after falling behind %q, want frame 5 whole", got)
	}
	cancel()
	<-done
}

// A region with parts (a lane and its clock line): while only a part
// changes an update carries that part alone; when the rest changes it
// carries the region whole and not its parts again; full frames carry the
// region, never a part on its own, and a part is not removed by itself.
func TestPartsTravelAloneWhileTheRestStays(t *testing.T) {
	var hs Hubs[int]
	h, leave := join(t, &hs, 0)
	defer leave()
	lane := func(marks, now string) []Region {
		part := `<b id="now">` + now + `</b>`
		return []Region{
			{ID: "lane", HTML: `<i id="lane">` + marks + part + `</i>`, Key: `<i id="lane">` + marks + "\x00now\x00</i>"},
			{ID: "now", HTML: part, Of: "lane"},
		}
	}
	steps := []struct {
		views      [][]Region
		delta      []string
		notInDelta []string
	}{
		{[][]Region{lane("m1", "t1")}, nil, nil},
		{[][]Region{lane("m1", "t2")}, []string{`id="now">t2`}, []string{`id="lane"`}},
		{[][]Region{lane("m2", "t3")}, []string{`id="lane">m2<b id="now">t3`}, []string{`fragments <b id="now">`}},
		{[][]Region{{{ID: "lane", HTML: `<i id="lane">m2</i>`}}}, []string{`id="lane">m2</i>`}, []string{"remove"}},
	}
	for i, s := range steps {
		if err := h.Publish(s.views); err != nil {
			t.Fatal(err)
		}
		fr, _, _ := h.latest(0)
		full, delta := string(fr.full.raw), string(fr.delta.raw)
		if strings.Count(full, `id="now"`) > 1 {
			t.Errorf("step %d: the full frame carries the part beside its region: %q", i+1, full)
		}
		for _, w := range s.delta {
			if !strings.Contains(delta, w) {
				t.Errorf("step %d: the update lacks %q: %q", i+1, w, delta)
			}
		}
		for _, w := range s.notInDelta {
			if strings.Contains(delta, w) {
				t.Errorf("step %d: the update holds %q: %q", i+1, w, delta)
			}
		}
	}
}
