package policies

import "testing"

// Every registry entry builds a policy that answers to the entry's name,
// and the options it lists are the ones New checks for it.
func TestRegistryEntriesBuildTheirPolicy(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range Registered() {
		if seen[in.Name] {
			t.Fatalf("%s: registered twice", in.Name)
		}
		seen[in.Name] = true
		if in.Human == "" {
			t.Errorf("%s: no human name", in.Name)
		}
		p, err := New(in.Name, Params{Limit: 5, WindowMs: 60_000, Buckets: 6})
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		if p.Name() != in.Name {
			t.Errorf("%s: builds a policy named %q", in.Name, p.Name())
		}
		for _, o := range in.Options {
			bad := Params{Limit: 5, WindowMs: 60_000, Buckets: 6}
			switch o.Name {
			case "arithmetic":
				bad.Arithmetic = "round"
			case "buckets":
				bad.Buckets = MaxBuckets + 1
			case "burst":
				bad.Burst = -2 // -1 is leaky-bucket's NoQueue
			case "delay":
				bad.Delay = 6 // above the burst, the limit
			default:
				t.Fatalf("%s: option %q has no bad value in this test", in.Name, o.Name)
			}
			if _, err := New(in.Name, bad); err == nil {
				t.Errorf("%s: a bad %s was accepted", in.Name, o.Name)
			}
		}
	}
	if len(Names) != len(seen) {
		t.Errorf("Names has %d entries, the registry %d", len(Names), len(seen))
	}
}

func TestTakingListsThePoliciesOfAnOption(t *testing.T) {
	for _, o := range []string{"arithmetic", "buckets", "burst"} {
		taking := Taking(o)
		if len(taking) == 0 {
			t.Errorf("Taking(%s) is empty", o)
		}
		for _, in := range Registered() {
			listed := false
			for _, n := range taking {
				listed = listed || n == in.Name
			}
			if listed != in.Takes(o) {
				t.Errorf("Taking(%s) lists %s: %v, but Takes says %v", o, in.Name, listed, in.Takes(o))
			}
		}
	}
	if got := Taking("nothing"); len(got) != 0 {
		t.Errorf("Taking(nothing) = %v, want none", got)
	}
}

func TestJoinNames(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := JoinNames(c.in); got != c.want {
			t.Errorf("JoinNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Each policy's Terms carry a tag derived from its name; two policies whose
// tags met would read each other's numbers without a word.
func TestTermsTagsAreDistinct(t *testing.T) {
	seen := map[uint32]string{}
	for _, name := range Names {
		tag := termsTag(name)
		if other, dup := seen[tag]; dup {
			t.Errorf("%s and %s share the terms tag %d", other, name, tag)
		}
		seen[tag] = name
	}
}

// Normalised is where options are resolved: what New's policy reports as
// its Params, without building it.
func TestNormalisedIsWhatThePolicyRunsWith(t *testing.T) {
	for _, tt := range []struct {
		name       string
		in         Params
		burst, dly int64
	}{
		{LeakyBucket, Params{Limit: 5, WindowMs: 1000, Delay: NoDelay}, 5, 5},
		{LeakyBucket, Params{Limit: 5, WindowMs: 1000, Burst: 8, Delay: NoDelay}, 8, 8},
		{LeakyBucket, Params{Limit: 5, WindowMs: 1000, Burst: 8, Delay: 3}, 8, 3},
		{TokenBucket, Params{Limit: 5, WindowMs: 1000}, 5, 0},
		{GCRA, Params{Limit: 5, WindowMs: 1000, Burst: 2}, 2, 0},
	} {
		got, err := Normalised(tt.name, tt.in)
		if err != nil {
			t.Fatalf("%s %+v: %v", tt.name, tt.in, err)
		}
		pol, err := New(tt.name, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got != pol.Params() || got.Burst != tt.burst || got.Delay != tt.dly {
			t.Errorf("%s %+v: Normalised %+v, the policy runs %+v; want burst %d delay %d", tt.name, tt.in, got, pol.Params(), tt.burst, tt.dly)
		}
	}
	if _, err := Normalised(LeakyBucket, Params{Limit: 5, WindowMs: 1000, Burst: 2, Delay: 3}); err == nil {
		t.Errorf("a delay above the burst: no error")
	}
}

// TestOptionsWordThemselves: every option a registered policy takes has
// the words sentences and labels use (a ref's message, "only … take
// buckets", a lane's "k=6"), so that none reads "()" or "%!d".
func TestOptionsWordThemselves(t *testing.T) {
	for _, in := range registry {
		for _, o := range in.Options {
			if o.Label == "" || o.Noun == "" {
				t.Errorf("%s: option %s: Label %q, Noun %q; want both", in.Name, o.Name, o.Label, o.Noun)
			}
			if o.Kind == Number && o.Labels == "" {
				t.Errorf("%s: option %s: a Number without Labels", in.Name, o.Name)
			}
		}
	}
}

// TestOptionsReadAndWriteScenarios holds Read and Written, through which
// scenario decoding, conform's counterexamples and the conform command's
// flags read and write every option without naming it.
func TestOptionsReadAndWriteScenarios(t *testing.T) {
	reads := []struct {
		o      Option
		policy string
		v      int64
		want   int64
		ok     bool
	}{
		{BurstOption, LeakyBucket, 0, NoQueue, true}, // nginx's limit_req without burst
		{BurstOption, TokenBucket, 0, 0, false},      // 0 reads as left out: refused
		{BurstOption, LeakyBucket, -1, 0, false},     // NoQueue inside, out of range written
		{BurstOption, GCRA, 4, 4, true},
		{BucketsOption, SlidingBuckets, 0, 0, false},
		{BucketsOption, SlidingBuckets, -3, -3, true}, // New refuses it, naming its range
		{perSizeOption, ExpHistogram, 0, 0, false},
		{DelayOption, LeakyBucket, 0, 0, true}, // the default, which may be written
		{DelayOption, LeakyBucket, NoDelay, NoDelay, true},
	}
	for i, c := range reads {
		got, ok := c.o.Read(c.policy, c.v)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("read %d: %s.Read(%s, %d) = %d, %v; want %d, %v", i, c.o.Name, c.policy, c.v, got, ok, c.want, c.ok)
		}
	}
	writes := []struct {
		o    Option
		p    Params
		want any // nil: left out
	}{
		{BurstOption, Params{Burst: NoQueue}, 0},
		{BurstOption, Params{Burst: 7}, int64(7)},
		{DelayOption, Params{Burst: 5, Delay: 0}, nil},
		{DelayOption, Params{Burst: 5, Delay: 2}, int64(2)},
		{DelayOption, Params{Burst: 5, Delay: 5}, "nodelay"},
		{DelayOption, Params{Burst: 5, Delay: NoDelay}, "nodelay"},
		{BucketsOption, Params{Buckets: 6}, int64(6)},
		{ArithmeticOption, Params{Arithmetic: Exact}, "exact"},
	}
	for i, c := range writes {
		got, ok := c.o.Written(c.p)
		if !ok {
			got = nil
		}
		if got != c.want {
			t.Errorf("write %d: %s.Written(%+v) = %v (%T); want %v (%T)", i, c.o.Name, c.p, got, got, c.want, c.want)
		}
	}
	var p Params
	ArithmeticOption.SetWord(&p, "round")
	if _, err := New(SlidingCounter, Params{Limit: 1, WindowMs: 1, Arithmetic: p.Arithmetic}); err == nil {
		t.Errorf("SetWord(round) then New: no error; want the arithmetic refused")
	}
}

// TestVariants holds the benchmarks' subjects to the registry: every
// policy, a Choice's every word, labels as docs/performance.md's tables
// have named them, and Flat for exactly the policies keeping no ring.
func TestVariants(t *testing.T) {
	got := map[string]Variant{}
	names := map[string]bool{}
	for _, v := range Variants() {
		if _, dup := got[v.Label]; dup {
			t.Errorf("label %q twice", v.Label)
		}
		got[v.Label] = v
		names[v.Name] = true
		if _, err := New(v.Name, Params{Limit: 10, WindowMs: 60_000, Arithmetic: v.Params.Arithmetic, Buckets: v.Params.Buckets}); err != nil {
			t.Errorf("%s: %v", v.Label, err)
		}
	}
	for _, n := range Names {
		if !names[n] {
			t.Errorf("policy %s has no variant", n)
		}
	}
	for label, want := range map[string]struct {
		title string
		flat  bool
	}{
		"fixed-window":          {"fixed-window", true},
		"sliding-log":           {"sliding-log", false},
		"sliding-counter-floor": {"sliding-counter floor", true},
		"sliding-counter-exact": {"sliding-counter exact", true},
		"sliding-buckets-k6":    {"sliding-buckets k=6", false},
		"token-bucket":          {"token-bucket", true},
		"gcra":                  {"gcra", true},
		"leaky-bucket":          {"leaky-bucket", true},
		"stepped-bucket":        {"stepped-bucket", true},
		"exp-histogram-k6":      {"exp-histogram k=6", false},
	} {
		v, ok := got[label]
		if !ok || v.Title != want.title || v.Flat != want.flat {
			t.Errorf("variant %s = %+v (found %v); want title %q, flat %v", label, v, ok, want.title, want.flat)
		}
	}
}
