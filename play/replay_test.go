package play

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// fullView is the view a replay from the first request gives, whatever the
// session keeps.
func fullView(s *Session) View {
	s.fullReplay = true
	defer func() { s.fullReplay = false }()
	return s.View()
}

// randomSettings picks lanes and settings small enough for lanes to
// disagree often.
func randomSettings(rng *rand.Rand) Settings {
	window := []int64{1000, 3000, 6000, 30_000}[rng.IntN(4)]
	var specs []scenario.PolicySpec
	for _, name := range policies.Names {
		if rng.IntN(3) == 0 {
			continue
		}
		spec := scenario.PolicySpec{Name: name}
		switch name {
		case policies.SlidingCounter:
			spec.Arithmetic = []policies.Arithmetic{policies.Floor, policies.Exact}[rng.IntN(2)]
		case policies.SlidingBuckets:
			spec.Buckets = []int64{1, 2, 4, 5}[rng.IntN(4)] // each divides every window above
		case policies.TokenBucket, policies.GCRA:
			spec.Burst = scenario.Burst(rng.Int64N(4))
		}
		if rng.IntN(4) == 0 {
			spec.WindowMs = window * 2
		}
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		specs = append(specs, scenario.PolicySpec{Name: policies.FixedWindow})
	}
	return Settings{Limit: 1 + rng.Int64N(6), WindowMs: window, Policies: specs}
}

// randomAction applies one action a visitor could take, mostly the ones a
// kept replay follows (fire at the clock, step, patterns), sometimes one
// that makes it start over. It names the action for failure messages.
func randomAction(rng *rand.Rand, s *Session) string {
	w := s.Scenario().WindowMs
	var name string
	var err error
	switch n := rng.IntN(100); {
	case n < 30:
		c := 1 + rng.Int64N(3)
		name, err = fmt.Sprintf("fire %d", c), s.Fire(c)
	case n < 55:
		ms := 1 + rng.Int64N(w)
		name, err = fmt.Sprintf("step %d ms", ms), s.Step(ms)
	case n < 60:
		name, err = "step a window", s.StepWindow()
	case n < 65:
		at := max(0, s.Now()+rng.Int64N(4*w)-3*w)
		name, err = fmt.Sprintf("jump to %d", at), s.Jump(at)
	case n < 72:
		p := Pattern{Kind: PatternKinds[rng.IntN(len(PatternKinds))], Count: 1 + rng.Int64N(40), SpanMs: 1 + rng.Int64N(3*w)}
		name, err = fmt.Sprintf("pattern %+v", p), s.FirePattern(p)
	case n < 78:
		c := []string{"default", "alice", "bob"}[rng.IntN(3)]
		name, err = "client "+c, s.SelectClient(c)
	case n < 84:
		total := int(s.View().Total)
		i := rng.IntN(total+1) - 1
		name, err = fmt.Sprintf("select %d", i), s.Select(i)
	case n < 88:
		c := 1 + rng.Int64N(3)
		name, err = fmt.Sprintf("cost %d", c), s.SetCost(c)
	case n < 92:
		st := randomSettings(rng)
		name, err = fmt.Sprintf("settings %+v", st), s.Apply(st)
	case n < 94:
		name, err = "reset", s.Reset()
	case n < 96:
		name, err = "rename", s.RenameClient(fmt.Sprintf("c%d", rng.IntN(1000)))
	case n < 98:
		name, err = "load", s.Load(s.Scenario())
	default:
		name, err = "probe", s.do(func() error {
			return s.insert(scenario.Request{At: s.clock.Now, Key: s.keyField(), Cost: 1, Count: 1, Probe: true})
		})
	}
	if err != nil {
		return name + " (refused: " + err.Error() + ")"
	}
	return name
}

// TestKeptReplayGivesTheFullReplaysView drives sessions with seeded random
// actions and, after each, compares the view that continues the kept
// replay with a replay from the first request, field by field.
func TestKeptReplayGivesTheFullReplaysView(t *testing.T) {
	views, continued := 0, 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 11))
		st := randomSettings(rng)
		s := newSession(t, scenario.Scenario{Limit: st.Limit, WindowMs: st.WindowMs, Policies: st.Policies})
		for step := range 60 {
			action := randomAction(rng, s)
			got := s.View()
			want := fullView(s)
			if diff := viewDiff(got, want); diff != "" {
				t.Fatalf("seed %d step %d (%s): the kept replay's view differs from a full replay's: %s", seed, step, action, diff)
			}
			views++
		}
		continued += s.derived.continued
	}
	// Most actions are ones a kept replay follows: if few views used it,
	// the comparison above compared full replays with themselves. (Random
	// steps and jumps move a fitted span up or down its ladder, and each
	// such change of the curve's sample grid replays in full: about half
	// the views here continue.)
	t.Logf("%d of %d views continued a kept replay", continued, views)
	if continued < views*2/5 {
		t.Errorf("%d of %d views continued a kept replay, want at least two fifths", continued, views)
	}
}

// viewDiff names the first field where two views differ ("" when equal).
func viewDiff(got, want View) string {
	if len(got.Lanes) != len(want.Lanes) {
		return fmt.Sprintf("%d lanes, want %d", len(got.Lanes), len(want.Lanes))
	}
	for i := range got.Lanes {
		if d := fieldDiff(fmt.Sprintf("Lanes[%d]", i), got.Lanes[i], want.Lanes[i]); d != "" {
			return d
		}
	}
	g, w := got, want
	g.Lanes, w.Lanes = nil, nil
	return fieldDiff("View", g, w)
}

// fieldDiff compares two structs field by field, and slices element by
// element, naming the path to the first difference.
func fieldDiff(path string, got, want any) string {
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	switch gv.Kind() {
	case reflect.Struct:
		for i := range gv.NumField() {
			f := gv.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if d := fieldDiff(path+"."+f.Name, gv.Field(i).Interface(), wv.Field(i).Interface()); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if gv.Len() != wv.Len() {
			return fmt.Sprintf("%s: %d elements, want %d", path, gv.Len(), wv.Len())
		}
		for i := range gv.Len() {
			if d := fieldDiff(fmt.Sprintf("%s[%d]", path, i), gv.Index(i).Interface(), wv.Index(i).Interface()); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s = %+v, want %+v", path, got, want)
	}
	return ""
}

// TestViewsAndActionsAtOnce: streams viewing copies of one session while
// actions change it in the store share the kept replay; under -race this
// finds unguarded state (a copy's requests written by a later action, the
// replay without its lock), and every view must still be a full replay's
// view of its own version.
func TestViewsAndActionsAtOnce(t *testing.T) {
	st := NewStore(nil)
	opened, err := st.New(DefaultScenario())
	must(t, "new", err)
	id := opened.ID()
	done := make(chan struct{})
	errs := make(chan string, 3)
	for range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- ""
					return
				default:
				}
				s, err := st.Get(context.Background(), id)
				if err != nil {
					errs <- err.Error()
					return
				}
				v := s.View()
				if len(v.Lanes) != len(DefaultScenario().Policies) {
					errs <- fmt.Sprintf("%d lanes", len(v.Lanes))
					return
				}
				if diff := viewDiff(v, fullView(s)); diff != "" {
					errs <- fmt.Sprintf("version %d: %s", v.Version, diff)
					return
				}
			}
		}()
	}
	for i := range 200 {
		if i%3 == 0 {
			update(t, st, id, "fire", func(s *Session) error { return s.Fire(1) })
		} else {
			update(t, st, id, "step", func(s *Session) error { return s.Step(250) })
		}
	}
	close(done)
	for range 3 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	s, err := st.Get(context.Background(), id)
	must(t, "get", err)
	if diff := viewDiff(s.View(), fullView(s)); diff != "" {
		t.Errorf("after concurrent views: %s", diff)
	}
}

// TestKeptReplayBounds: a session whose replay would keep more than
// MaxReplayCacheBytes keeps none (and still shows a full replay's view); a
// session's last stream closing lets its kept replay go.
func TestKeptReplayBounds(t *testing.T) {
	// Two sliding logs of 10,000 timestamps for each of 20 clients:
	// 1.6 MB each.
	var lanes []scenario.PolicySpec
	for range 2 {
		lanes = append(lanes, scenario.PolicySpec{Name: policies.SlidingLog})
	}
	sc := scenario.Scenario{Limit: 10_000, WindowMs: 60_000, Policies: lanes}
	for i := range 20 {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(i), Key: fmt.Sprintf("client-%d", i), Cost: 1, Count: 1})
	}
	big := newSession(t, sc)
	must(t, "step", big.Step(100))
	big.View()
	if big.derived.replays != nil {
		t.Errorf("a session kept a replay of about %d bytes, over MaxReplayCacheBytes = %d", big.derived.replays.bytes(), MaxReplayCacheBytes)
	}

	// Four sliding logs of 10,000 hold 80 KB per client each: one
	// client's replay is kept; when another client's request is
	// appended, the continued replay outgrows the bound and is let go.
	growing := newSession(t, scenario.Scenario{Limit: 10_000, WindowMs: 60_000, Policies: append(lanes, lanes...)})
	must(t, "fire", growing.Fire(1))
	growing.View()
	if growing.derived.replays == nil {
		t.Fatalf("one client in four sliding logs: no replay kept")
	}
	must(t, "another client's request", growing.do(func() error {
		return growing.insert(scenario.Request{At: growing.clock.Now, Key: "bob", Cost: 1, Count: 1})
	}))
	growing.View()
	if growing.derived.replays != nil {
		t.Errorf("a continued replay of about %d bytes is still kept, over MaxReplayCacheBytes = %d", growing.derived.replays.bytes(), MaxReplayCacheBytes)
	}

	// The largest session the playground holds, eight lanes (the most a
	// scenario has) of 5,000 requests, keeps its replay.
	most := newSession(t, scenario.Scenario{Limit: 100, WindowMs: 60_000, Policies: append(benchLanes[:7:7], benchLanes[0])})
	for range MaxRequests / MaxPatternCount {
		must(t, "pattern", most.FirePattern(Pattern{Kind: Poisson, Count: MaxPatternCount, SpanMs: 120_000}))
	}
	most.View()
	must(t, "step", most.Step(100))
	most.View()
	if most.derived.replays == nil || most.derived.continued != 1 {
		t.Errorf("8 lanes × %d requests: kept replay %v, continued %d views, want it kept and continued once", MaxRequests, most.derived.replays != nil, most.derived.continued)
	}

	st := NewStore(nil)
	opened, err := st.New(DefaultScenario())
	must(t, "new", err)
	_, stop := watch(t, st, opened)
	s := update(t, st, opened.ID(), "fire", func(s *Session) error { return s.Fire(3) })
	s.View()
	if s.derived.replays == nil {
		t.Fatal("a watched session with three requests kept no replay")
	}
	stop()
	if s.derived.replays != nil {
		t.Error("the session still keeps its replay after its last stream closed")
	}
}
