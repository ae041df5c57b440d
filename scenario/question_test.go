package scenario

import (
	"slices"
	"testing"

	"github.com/windowlab/playground/policies"
)

func TestParsePolicyRef(t *testing.T) {
	tests := []struct {
		ref  string
		want PolicySpec
	}{
		{"sliding-log", PolicySpec{Name: policies.SlidingLog}},
		{"sliding-counter", PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Floor}},
		{"sliding-counter/exact", PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Exact}},
		{"sliding-buckets/6", PolicySpec{Name: policies.SlidingBuckets, Buckets: 6}},
		{"gcra/20", PolicySpec{Name: policies.GCRA, Burst: 20}},
		{"leaky-bucket/5", PolicySpec{Name: policies.LeakyBucket, Burst: 5}},
		{"leaky-bucket/5/2", PolicySpec{Name: policies.LeakyBucket, Burst: 5, Delay: 2}},
		{"leaky-bucket/5/nodelay", PolicySpec{Name: policies.LeakyBucket, Burst: 5, Delay: Delay(policies.NoDelay)}},
	}
	for _, tt := range tests {
		got, err := ParsePolicyRef(tt.ref)
		if err != nil || got != tt.want {
			t.Errorf("ParsePolicyRef(%q) = %+v, %v; want %+v", tt.ref, got, err, tt.want)
		}
		if back := got.Ref(); back != tt.ref && tt.ref != "sliding-counter" {
			t.Errorf("Ref() = %q, want %q", back, tt.ref)
		}
	}
	for _, bad := range []string{"", "tumbling", "sliding-counter/round", "sliding-log/3", "sliding-buckets/0", "gcra/x", "gcra/5/2", "leaky-bucket/5/soon", "leaky-bucket/5/-1", "sliding-buckets/6/nodelay"} {
		if _, err := ParsePolicyRef(bad); err == nil {
			t.Errorf("ParsePolicyRef(%q) succeeded; want an error", bad)
		}
	}
}

// TestParsePolicyRefSaysWhatIsWrong: a bad short ref's message names the
// ref and what its part should have been, from the option's own words.
func TestParsePolicyRefSaysWhatIsWrong(t *testing.T) {
	for _, tt := range []struct{ ref, want string }{
		{"sliding-counter/round", `"sliding-counter/round": sliding-counter takes /floor or /exact`},
		{"sliding-log/3", `"sliding-log/3": sliding-log takes no option after /`},
		{"sliding-buckets/0", `"sliding-buckets/0": the part after the / must be a whole number of at least 1 (buckets)`},
		{"exp-histogram/k", `"exp-histogram/k": the part after the / must be a whole number of at least 1 (buckets)`},
		{"gcra/5/2", `"gcra/5/2": gcra takes at most 1 part(s) after its name (burst)`},
		{"leaky-bucket/5/soon", `"leaky-bucket/5/soon": the part after the second / must be a whole number of at least 1 or "nodelay" (a delay)`},
	} {
		_, err := ParsePolicyRef(tt.ref)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParsePolicyRef(%q) = %v; want %s", tt.ref, err, tt.want)
		}
	}
}

// TestRefRoundTripsEveryOption: for every registered policy, a spec that
// sets each option it takes (to a value of its own, not the default)
// comes back from its Ref unchanged, so a new option has a short form
// without code here.
func TestRefRoundTripsEveryOption(t *testing.T) {
	for _, in := range policies.Registered() {
		spec := PolicySpec{Name: in.Name}
		for _, o := range in.Options {
			v := int64(len(o.Choices) - 1) // a Choice's last word
			if o.Kind == policies.Number {
				v = o.Default + 2
			}
			spec = spec.WithOption(o, v)
		}
		got, err := ParsePolicyRef(spec.Ref())
		if err != nil || got != spec {
			t.Errorf("%s: ParsePolicyRef(%q) = %+v, %v; want %+v", in.Name, spec.Ref(), got, err, spec)
		}
	}
}

// tryIt is the lesson's "Try it" setting: a 30 s window, limit 5, and a
// previous window that accepted 5 requests in its first second.
func tryIt() Scenario {
	return Scenario{Limit: 5, WindowMs: 30000, Requests: []Request{{At: 0, Cost: 1, Count: 5}}}
}

func TestWhatIfAndFirstAdmitted(t *testing.T) {
	exact := PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Exact}
	floor := PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Floor}
	log := PolicySpec{Name: policies.SlidingLog}
	for _, tt := range []struct {
		spec PolicySpec
		at   int64
		want bool
	}{
		{exact, 33000, false}, {floor, 33000, true}, {log, 33000, true},
	} {
		d, err := WhatIf(tryIt(), tt.spec, Request{At: tt.at})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed() != tt.want {
			t.Errorf("%s at %d: allowed %v, want %v", tt.spec.Ref(), tt.at, d.Allowed(), tt.want)
		}
	}
	for _, tt := range []struct {
		spec PolicySpec
		want int64
	}{{exact, 36000}, {floor, 30001}} {
		got, err := FirstAdmitted(tryIt(), tt.spec, Request{At: 30000}, 60000)
		if err != nil || got != tt.want {
			t.Errorf("FirstAdmitted(%s) = %d, %v; want %d", tt.spec.Ref(), got, err, tt.want)
		}
	}
}

func TestStackedRefusesWhatAnyPolicyRefuses(t *testing.T) {
	s := Scenario{Limit: 2, WindowMs: 1000, Policies: []PolicySpec{
		{Name: policies.FixedWindow},
		{Name: policies.FixedWindow, Limit: 3, WindowMs: 10000},
	}, Requests: []Request{{At: 0, Cost: 1, Count: 3}, {At: 1000, Cost: 1, Count: 3}}}
	admitted, by, err := Stacked(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, false, true, false, false}
	wantBy := []int{-1, -1, 0, -1, 1, 0}
	for i := range want {
		if admitted[i] != want[i] || by[i] != wantBy[i] {
			t.Errorf("request %d: admitted %v by %d, want %v by %d", i, admitted[i], by[i], want[i], wantBy[i])
		}
	}
}

// A question about one more request, asked without a key, is about the
// scenario's own client when all its requests share one: the car at 35 s
// in the named car park meets the cars that came before it.
func TestWhatIfJoinsTheScenariosSoleClient(t *testing.T) {
	s := loadCarPark(t) // every car has key "car-park"
	spec := PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Exact}
	d, err := WhatIf(s, spec, Request{At: 35_000})
	if err != nil {
		t.Fatal(err)
	}
	if d.Key != "car-park" || d.Allowed() {
		t.Errorf("WhatIf(35 s) = key %q allowed %v, want key %q refused (5 × 5/6 + 1 > 5)", d.Key, d.Allowed(), "car-park")
	}

	mixed := s
	mixed.Requests = append(slices.Clone(s.Requests), Request{At: 50_000, Key: "other", Cost: 1, Count: 1})
	d, err = WhatIf(mixed, spec, Request{At: 35_000})
	if err != nil {
		t.Fatal(err)
	}
	if d.Key != DefaultKey || !d.Allowed() {
		t.Errorf("with two clients, WhatIf(35 s) = key %q allowed %v, want the default key, admitted", d.Key, d.Allowed())
	}
}

// WhatIfN decides all r.Count requests after what came before them, each
// the sole client's when r has no key: their decisions, and only theirs.
func TestWhatIfNDecidesEachAskedRequest(t *testing.T) {
	s := Scenario{Limit: 3, WindowMs: 1000, Requests: []Request{{At: 0, Key: "car", Cost: 1, Count: 2}, {At: 900, Key: "car", Cost: 1, Count: 1}}}
	ds, err := WhatIfN(s, PolicySpec{Name: "fixed-window"}, Request{At: 500, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 {
		t.Fatalf("%d decisions, want the 3 asked", len(ds))
	}
	for i, want := range []bool{true, false, false} { // 2 of 3 taken at 0; the one at 900 is not replayed
		if ds[i].Key != "car" || ds[i].At != 500 || ds[i].Allowed() != want {
			t.Errorf("asked %d: key %q at %d allowed %v, want car at 500 allowed %v", i+1, ds[i].Key, ds[i].At, ds[i].Allowed(), want)
		}
	}
}
