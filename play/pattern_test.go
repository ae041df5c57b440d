package play

import (
	"reflect"
	"testing"
)

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
