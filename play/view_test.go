package play

import (
	"reflect"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

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
	want := "carried = previous × (window − elapsed) ÷ window = 5 × (30 s − 5 s) ÷ 30 s = 25/6 ≈ 4.17 (exact)"
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

// TestLaneSummarySingular: the text alternative says "1 older request".
func TestLaneSummarySingular(t *testing.T) {
	if got := (Lane{Label: "gcra", Hidden: 1}).Summary(View{Client: "default"}); !strings.Contains(got, " 1 older request in view is not drawn.") {
		t.Errorf("summary %q", got)
	}
}
