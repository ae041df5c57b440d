package scenario

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/policies"
)

func TestParseAcceptsTheContractForms(t *testing.T) {
	s, err := Parse([]byte(`{
		"limit": 5, "windowMs": 30000,
		"policies": ["fixed-window", {"name": "sliding-counter", "arithmetic": "exact"},
		             {"name": "sliding-buckets", "buckets": 6, "windowMs": 60000}],
		"requests": [{"at": 35000, "key": "car-a", "cost": 2, "count": 3}, {"at": 36000, "probe": true}]
	}`))
	require.NoError(t, err)
	assert.Equal(t, Scenario{
		Limit: 5, WindowMs: 30000,
		Policies: []PolicySpec{
			{Name: policies.FixedWindow},
			{Name: policies.SlidingCounter, Arithmetic: policies.Exact},
			{Name: policies.SlidingBuckets, Buckets: 6, WindowMs: 60000},
		},
		Requests: []Request{
			{At: 35000, Key: "car-a", Cost: 2, Count: 3},
			{At: 36000, Cost: 1, Count: 1, Probe: true},
		},
	}, s)
	assert.Equal(t, int64(60000), s.Policies[2].Params(s).WindowMs, "a policy's own window overrides the scenario's")
	assert.Equal(t, int64(5), s.Policies[2].Params(s).Limit, "the scenario's limit is shared")

	one, err := Parse([]byte(`{"limit": 5, "windowMs": 30000, "policy": "sliding-log"}`))
	require.NoError(t, err)
	assert.Equal(t, []PolicySpec{{Name: policies.SlidingLog}}, one.Policies, `"policy" is a one-policy list`)

	none, err := Parse([]byte(`{"limit": 5, "windowMs": 30000}`))
	require.NoError(t, err)
	assert.Equal(t, DefaultPolicies(), none.Specs())

	null, err := Parse([]byte(`{"limit": 5, "windowMs": 30000, "policy": null}`))
	require.NoError(t, err)
	assert.Equal(t, DefaultPolicies(), null.Specs(), `"policy": null is left out`)
}

// Every rejection names the field and says why, so a person can fix the
// file without reading the code.
func TestParseRejectsBadInputNamingTheField(t *testing.T) {
	tests := []struct {
		name, in, field, reason string
	}{
		{"malformed", `{"limit": 5,`, "", "malformed JSON"},
		{"syntax", `{"limit": 5 "windowMs": 1}`, "", "malformed JSON at byte"},
		{"empty", ``, "", "empty input"},
		{"trailing data", `{"limit": 5, "windowMs": 10} {}`, "", "unexpected data"},
		{"unknown field", `{"limit": 5, "windowMs": 10, "window": 3}`, "window", "unknown field"},
		{"unknown request field", `{"limit": 5, "windowMs": 10, "requests": [{"time": 3}]}`, "requests[0].time", "unknown field"},
		{"request type error keeps the index", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0}, {"at": 1}, {"at": "2s"}]}`, "requests[2].at", "want a whole number"},
		{"request not an object", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0}, 7]}`, "requests[1]", "want a request object"},
		{"policy type error keeps the index", `{"limit": 5, "windowMs": 10, "policies": ["gcra", {"name": "gcra", "burst": "big"}]}`, "policies[1].burst", "want a whole number"},
		{"fractional limit", `{"limit": 5.5, "windowMs": 10}`, "limit", "whole number"},
		{"string window", `{"limit": 5, "windowMs": "30s"}`, "windowMs", "whole number"},
		{"missing limit", `{"windowMs": 10}`, "limit", "missing"},
		{"zero limit", `{"limit": 0, "windowMs": 10}`, "limit", "out of range"},
		{"negative limit", `{"limit": -3, "windowMs": 10}`, "limit", "out of range"},
		{"limit over bound", `{"limit": 10001, "windowMs": 10}`, "limit", "out of range"},
		{"missing window", `{"limit": 5}`, "windowMs", "missing"},
		{"zero window", `{"limit": 5, "windowMs": 0}`, "windowMs", "out of range"},
		{"unknown policy", `{"limit": 5, "windowMs": 10, "policy": "tumbling"}`, "policy", `unknown policy "tumbling"`},
		{"unknown policy object", `{"limit": 5, "windowMs": 10, "policy": {"name": "tumbling"}}`, "policy.name", `unknown policy "tumbling"`},
		{"unknown policy in the list", `{"limit": 5, "windowMs": 10, "policies": ["gcra", "tumbling"]}`, "policies[1].name", `unknown policy "tumbling"`},
		{"one policy's option", `{"limit": 5, "windowMs": 10, "policy": {"name": "sliding-log", "buckets": 6}}`, "policy.buckets", "only " + policies.JoinNames(policies.Taking(policies.BucketsOptionName))},
		{"list not a list", `{"limit": 5, "windowMs": 10, "requests": 5}`, "requests", "want a list"},
		{"both policy forms", `{"limit": 5, "windowMs": 10, "policy": "gcra", "policies": ["gcra"]}`, "policy", "not both"},
		{"policy limit", `{"limit": 5, "windowMs": 10, "policies": [{"name": "gcra", "limit": -1}]}`, "policies[0].limit", "out of range"},
		// 0 in a policy object is a value someone wrote, not "left out".
		{"policy limit 0", `{"limit": 5, "windowMs": 10, "policies": [{"name": "gcra", "limit": 0}]}`, "policies[0].limit", "0 is not allowed: give at least 1, or leave limit out for the scenario's limit"},
		{"policy window 0", `{"limit": 5, "windowMs": 10, "policies": [{"name": "gcra", "windowMs": 0}]}`, "policies[0].windowMs", "0 is not allowed"},
		{"burst 0", `{"limit": 5, "windowMs": 10, "policy": {"name": "token-bucket", "burst": 0}}`, "policy.burst", "leave burst out for a burst equal to the limit"},
		{"buckets 0", `{"limit": 5, "windowMs": 60, "policies": [{"name": "sliding-buckets", "buckets": 0}]}`, "policies[0].buckets", "leave buckets out for 6 buckets"},
		{"burst 0 on a policy without one", `{"limit": 5, "windowMs": 10, "policies": [{"name": "fixed-window", "burst": 0}]}`, "policies[0].burst", "only " + policies.JoinNames(policies.Taking(policies.BurstOptionName)) + " take a burst"},
		{"buckets 0 on a policy without them", `{"limit": 5, "windowMs": 10, "policy": {"name": "gcra", "buckets": 0}}`, "policy.buckets", "only " + policies.JoinNames(policies.Taking(policies.BucketsOptionName)) + " take buckets"},
		{"negative burst", `{"limit": 5, "windowMs": 10, "policy": {"name": "gcra", "burst": -1}}`, "policy.burst", "-1 is out of range (1 to 10000, or leave it out for a burst equal to the limit)"},
		{"arithmetic not a word", `{"limit": 5, "windowMs": 10, "policy": {"name": "sliding-counter", "arithmetic": 5}}`, "policy.arithmetic", "want a string, got number"},
		{"k of exp-histogram 0", `{"limit": 5, "windowMs": 10, "policy": {"name": "exp-histogram", "buckets": 0}}`, "policy.buckets", "leave buckets out for 6 buckets"},
		{"delay on gcra", `{"limit": 5, "windowMs": 10, "policy": {"name": "gcra", "delay": "nodelay"}}`, "policy.delay", "only leaky-bucket takes a delay"},
		{"delay not a word it knows", `{"limit": 5, "windowMs": 10, "policy": {"name": "leaky-bucket", "delay": "soon"}}`, "policy.delay", `want a whole number of permits or "nodelay", got "soon"`},
		{"negative delay", `{"limit": 5, "windowMs": 10, "policy": {"name": "leaky-bucket", "delay": -1}}`, "policy.delay", `want a whole number of permits or "nodelay", got -1`},
		{"delay above the burst", `{"limit": 5, "windowMs": 10, "policy": {"name": "leaky-bucket", "burst": 3, "delay": 4}}`, "policy.delay", "delay 4 is out of range [0, burst 3] (or nodelay)"},
		{"arithmetic on log", `{"limit": 5, "windowMs": 10, "policies": [{"name": "sliding-log", "arithmetic": "exact"}]}`, "policies[0].arithmetic", "only sliding-counter"},
		{"bad arithmetic", `{"limit": 5, "windowMs": 10, "policies": [{"name": "sliding-counter", "arithmetic": "round"}]}`, "policies[0].arithmetic", `arithmetic "round" is neither "floor" nor "exact"`},
		{"buckets not dividing", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "sliding-buckets", "buckets": 7}]}`, "policies[0].buckets", "windowMs 1000 is not a multiple of buckets 7"},
		{"too many policies", `{"limit": 5, "windowMs": 10, "policies": ["gcra","gcra","gcra","gcra","gcra","gcra","gcra","gcra","gcra","gcra","gcra","gcra","gcra"]}`, "policies", "at most 12"},
		{"policy not a name", `{"limit": 5, "windowMs": 10, "policies": [3]}`, "policies[0]", "policy name or an object"},
		{"missing at", `{"limit": 5, "windowMs": 10, "requests": [{"key": "a"}]}`, "requests[0].at", "missing"},
		{"negative at", `{"limit": 5, "windowMs": 10, "requests": [{"at": -1}]}`, "requests[0].at", "out of range"},
		{"backwards", `{"limit": 5, "windowMs": 10, "requests": [{"at": 5000}, {"at": 1000}]}`, "requests[1].at", "must not go backwards"},
		{"zero cost", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0, "cost": 0}]}`, "requests[0].cost", "out of range"},
		{"zero count", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0, "count": 0}]}`, "requests[0].count", "out of range"},
		{"count over bound", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0, "count": 10001}]}`, "requests[0].count", "out of range"},
		{"total over bound", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0, "count": 6000}, {"at": 1, "count": 6000}]}`, "requests[1].count", "at most 10000"},
		{"long key", `{"limit": 5, "windowMs": 10, "requests": [{"at": 0, "key": "` + strings.Repeat("k", 65) + `"}]}`, "requests[0].key", "longer than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			require.Error(t, err)
			var errs Errors
			require.ErrorAs(t, err, &errs)
			found := false
			for _, e := range errs {
				if e.Field == tt.field && strings.Contains(e.Reason, tt.reason) {
					found = true
				}
			}
			assert.True(t, found, "errors %q: want field %q with reason containing %q", err, tt.field, tt.reason)
		})
	}
}

func TestDecodeRefusesOversizedInput(t *testing.T) {
	big := `{"limit": 5, "windowMs": 10, "comment": "` + strings.Repeat("x", MaxBodyBytes) + `"}`
	_, err := Decode(strings.NewReader(big))
	require.ErrorContains(t, err, "larger than")
}

func TestTooManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"limit": 5, "windowMs": 10, "requests": [`)
	for i := range MaxKeys + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"at": 0, "key": "k` + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"}`)
	}
	b.WriteString("]}")
	_, err := Parse([]byte(b.String()))
	require.ErrorContains(t, err, "more than 100 distinct keys")
}

// FuzzParse checks that no input makes the decoder panic, and that whatever
// it accepts is valid and runs. The seed corpus runs with every go test.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"limit": 5, "windowMs": 30000, "policy": "sliding-log", "requests": [{"at": 0}, {"at": 5000, "count": 2}]}`,
		`{"limit": 5, "windowMs": 30000, "policies": ["fixed-window", {"name": "sliding-counter", "arithmetic": "exact"}, {"name": "sliding-buckets", "buckets": 6}], "requests": [{"at": 35000, "key": "car-a", "cost": 1, "count": 3}, {"at": 36000, "probe": true}]}`,
		`{"limit": 3, "windowMs": 1000, "policies": [{"name": "token-bucket", "burst": 6}, "gcra"], "requests": [{"at": 0, "cost": 4}]}`,
		`{"limit": 1, "windowMs": 1, "requests": [{"at": 4398046511104}]}`,
		`{"limit": 5}`, `[]`, `null`, `{"policies": [null]}`, `{"requests": [null]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			var errs Errors
			if !assert.ErrorAs(t, err, &errs) || len(errs) == 0 {
				t.Fatalf("error %v is not a list of field errors", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted a scenario Validate refuses: %v", err)
		}
		if _, err := Run(s); err != nil {
			t.Fatalf("Run refused a parsed scenario: %v", err)
		}
	})
}

// encoding/json reports only the first mistyped field; docs/scenario.md promises
// every problem with its field, so each is found, up to a bound.
func TestParseReportsEveryTypeError(t *testing.T) {
	tests := []struct {
		name, in string
		fields   []string
	}{
		{"the reviewer's case", `{"limit":"5","windowMs":true,"requests":[{"at":"x"}]}`, []string{"limit", "windowMs", "requests[0].at"}},
		{"two in one request", `{"limit": 5, "windowMs": 10, "requests": [{"at": "x", "cost": "y", "count": 2}]}`, []string{"requests[0].at", "requests[0].cost"}},
		{"type error and unknown field", `{"limit": "5", "window": 3, "windowMs": 10}`, []string{"limit", "window"}},
		{"requests after a bad one", `{"limit": 5, "windowMs": 10, "requests": [{"at": "x"}, {"at": 1}, {"at": 2, "key": 7}]}`, []string{"requests[0].at", "requests[2].key"}},
		{"two in one policy of the list", `{"limit": 5, "windowMs": 10, "policies": ["gcra", {"name": "gcra", "burst": "big", "limit": "5"}]}`, []string{"policies[1].burst", "policies[1].limit"}},
		{"three in the one policy", `{"limit": 5, "windowMs": 10, "policy": {"name": 7, "buckets": "six", "colour": 1}}`, []string{"policy.name", "policy.buckets", "policy.colour"}},
		{"top level, then the policy", `{"limit": "5", "windowMs": 10, "policy": {"name": "gcra", "burst": true}}`, []string{"limit", "policy.burst"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var errs Errors
			require.ErrorAs(t, err, &errs)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			assert.Equal(t, tt.fields, got, "errors: %v", err)
		})
	}

	var b strings.Builder
	b.WriteString(`{"limit": 5, "windowMs": 10, "requests": [`)
	for i := range MaxRequests {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"at": "soon"}`)
	}
	b.WriteString(`]}`)
	_, err := Parse([]byte(b.String()))
	var errs Errors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, maxDecodeErrors+1, "a list wrong everywhere is reported up to the bound, then says it stopped")
	assert.Equal(t, stoppedReading, errs[maxDecodeErrors])
	assert.Contains(t, err.Error(), "; and 10 more; reading stopped after 20 problems, so there may be more",
		"10,000 mistyped requests are not '10 more' than the 10 printed")

	b.Reset()
	b.WriteString(`{"limit": 5, "windowMs": 10, "policies": [`)
	for i := range maxDecodeErrors {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name": "gcra", "limit": "x", "burst": "y"}`)
	}
	b.WriteString(`]}`)
	_, err = Parse([]byte(b.String()))
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, maxDecodeErrors+1, "policies wrong everywhere are reported up to the same bound")
	assert.Equal(t, stoppedReading, errs[maxDecodeErrors])

	// Missing instants are counted by the reading, not as broken fields,
	// so the checks that follow it must not add their errors after the
	// stop: 25 requests without "at" and a limit of 0.
	b.Reset()
	b.WriteString(`{"limit": 0, "windowMs": 10, "requests": [`)
	for i := range 25 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"key": "a"}`)
	}
	b.WriteString(`]}`)
	_, err = Parse([]byte(b.String()))
	require.ErrorAs(t, err, &errs)
	require.NotEmpty(t, errs)
	assert.Equal(t, stoppedReading, errs[len(errs)-1], "reading stopped is the last entry")
	assert.Len(t, errs, maxDecodeErrors+1)
}

// TestParseLeakyBucketWithoutAQueue: "burst": 0 is a leaky bucket's no
// queue (nginx's limit_req without burst), held as policies.NoQueue and
// written back as 0, so a scenario round-trips.
func TestParseLeakyBucketWithoutAQueue(t *testing.T) {
	in := []byte(`{"limit": 5, "windowMs": 1000, "policies": [{"name": "leaky-bucket", "burst": 0}], "requests": []}`)
	s, err := Parse(in)
	require.NoError(t, err)
	assert.Equal(t, Burst(policies.NoQueue), s.Policies[0].Burst)
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"burst":0`)
	again, err := Parse(out)
	require.NoError(t, err, string(out))
	assert.Equal(t, s, again)
}

// TestOptionsRoundTripThroughTheirScenarioForm writes every policy's
// options as policies.Option.Written does (conform's counterexamples
// do), reads the JSON back through Decode and asks that the policy runs
// with the same parameters: each option's written form and its reading
// agree, for every option's bounds, default and word.
func TestOptionsRoundTripThroughTheirScenarioForm(t *testing.T) {
	const limit, windowMs = 12, 60_000
	for _, in := range policies.Registered() {
		var cases []policies.Params
		for _, o := range in.Options {
			var values []int64
			switch {
			case o.Kind == policies.Choice:
				for i := range o.Choices {
					values = append(values, int64(i))
				}
			default:
				// -1 too: the leaky bucket's no queue, which the others refuse.
				values = append(values, o.Min, o.Default, min(o.Max, limit), -1)
				if o.Word != "" {
					values = append(values, o.WordValue)
				}
			}
			for _, v := range values {
				p := policies.Params{Limit: limit, WindowMs: windowMs}
				o.Set(&p, v)
				cases = append(cases, p)
			}
		}
		if len(in.Options) == 0 {
			cases = append(cases, policies.Params{Limit: limit, WindowMs: windowMs})
		}
		for _, raw := range cases {
			want, err := policies.Normalised(in.Name, raw)
			if err != nil {
				continue // a value the policy refuses (a negative burst but the leaky bucket's)
			}
			spec := map[string]any{"name": in.Name}
			for _, o := range in.Options {
				if v, ok := o.Written(want); ok {
					spec[o.Name] = v
				}
			}
			doc, _ := json.Marshal(map[string]any{"limit": limit, "windowMs": windowMs, "policy": spec, "requests": []any{}})
			s, err := Decode(strings.NewReader(string(doc)))
			if err != nil {
				t.Errorf("%s: %s does not decode: %v", in.Name, doc, err)
				continue
			}
			got, err := policies.Normalised(in.Name, s.Policies[0].Params(s))
			if err != nil || got != want {
				t.Errorf("%s: %s runs with %+v (%v); want %+v", in.Name, doc, got, err, want)
			}
		}
	}
}
