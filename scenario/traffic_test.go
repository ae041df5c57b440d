package scenario

import (
	"slices"
	"testing"
)

func TestTrafficShapes(t *testing.T) {
	const w = 1000
	for _, tt := range []struct {
		name  string
		t     Traffic
		check func([]int64) string
	}{
		{"steady at rate", AtRate(Steady, 8, w, 2, 1), func(ts []int64) string {
			// 1.25 × 8 = 10 a window, every 100 ms.
			if !slices.Equal(ts[:3], []int64{0, 100, 200}) || len(ts) != 20 {
				return "want 20 requests every 100 ms"
			}
			return ""
		}},
		{"end-loaded at rate", AtRate(EndLoaded, 8, w, 2, 1), func(ts []int64) string {
			for _, at := range ts {
				if at%w < 900 {
					return "a request outside its window's last tenth"
				}
			}
			if len(ts) != 20 {
				return "want 10 in each of two windows"
			}
			return ""
		}},
		{"adversarial", AtRate(Adversarial, 3, w, 4, 1), func(ts []int64) string {
			want := []int64{999, 999, 999, 1000, 1000, 1000, 1001, 1001, 1001, 2999, 2999, 2999, 3000, 3000, 3000, 3001, 3001, 3001}
			if !slices.Equal(ts, want) {
				return "want a full limit either side of every other edge"
			}
			return ""
		}},
		{"poisson with a count", Traffic{Shape: Poisson, From: 500, SpanMs: 10_000, WindowMs: w, Count: 50, Seed: 3}, func(ts []int64) string {
			if len(ts) != 50 || ts[0] < 500 {
				return "want exactly 50 requests from 500 ms"
			}
			return ""
		}},
		{"straddle", Traffic{Shape: Straddle, From: 100, SpanMs: w, WindowMs: w, Count: 3}, func(ts []int64) string {
			if !slices.Equal(ts, []int64{990, 990, 1010}) {
				return "want two just before the edge at 1 s and one just after"
			}
			return ""
		}},
	} {
		ts, err := tt.t.Times()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.IsSorted(ts) {
			t.Errorf("%s: instants not sorted: %v", tt.name, ts)
		}
		if msg := tt.check(ts); msg != "" {
			t.Errorf("%s: %v: %s", tt.name, ts, msg)
		}
		again, _ := tt.t.Times()
		if !slices.Equal(ts, again) {
			t.Errorf("%s: the same traffic gave different instants", tt.name)
		}
	}
	if _, err := (Traffic{Shape: "zigzag", SpanMs: w, WindowMs: w, Count: 1}).Times(); err == nil {
		t.Error("an unknown shape was accepted")
	}
	if _, err := (Traffic{Shape: Steady, SpanMs: w, WindowMs: w}).Times(); err == nil {
		t.Error("traffic with neither a count nor a rate was accepted")
	}
}

func TestRequestsMergesSameInstant(t *testing.T) {
	got := Requests([]int64{0, 0, 5, 9, 9, 9}, "k", 2)
	want := []Request{{At: 0, Key: "k", Cost: 2, Count: 2}, {At: 5, Key: "k", Cost: 2, Count: 1}, {At: 9, Key: "k", Cost: 2, Count: 3}}
	if !slices.Equal(got, want) {
		t.Errorf("Requests = %+v, want %+v", got, want)
	}
}

func TestEveryShapeCanBeNamedAsAGeneratedScenario(t *testing.T) {
	for _, shape := range []Shape{Steady, Poisson, Bursty, FrontLoaded, EndLoaded, Straddle, Adversarial} {
		name := GeneratedPrefix + string(shape) + "/10/1000/4/1"
		s, err := Generated(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(s.Requests) == 0 {
			t.Errorf("%s: no requests", name)
		}
	}
	if _, err := Generated(GeneratedPrefix + "zigzag/10/1000/4/1"); err == nil {
		t.Error("an unknown shape was accepted")
	}
}

func TestTrafficStaysWithinItsBound(t *testing.T) {
	for _, shape := range []Shape{Steady, Poisson, Bursty, FrontLoaded, EndLoaded, Straddle, Adversarial} {
		ts, err := AtRate(shape, MaxLimit, 1000, 100, 1).Times()
		if err != nil {
			t.Errorf("%s: %v", shape, err)
		} else if len(ts) > MaxGenerated {
			t.Errorf("%s: %d requests, more than MaxGenerated (%d)", shape, len(ts), MaxGenerated)
		}
	}
}
