package policies

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// vector is one scenario of testdata/*.json; see testdata/README.md.
type vector struct {
	Name   string `json:"name"`
	About  string `json:"about"`
	Policy string `json:"policy"`
	Params struct {
		Limit      int64       `json:"limit"`
		WindowMs   int64       `json:"windowMs"`
		Arithmetic Arithmetic  `json:"arithmetic"`
		Buckets    int64       `json:"buckets"`
		Burst      int64       `json:"burst"`
		Delay      vectorDelay `json:"delay"`
	} `json:"params"`
	Requests []struct {
		At           int64  `json:"at"`
		Key          Key    `json:"key"`
		Cost         int64  `json:"cost"`
		Peek         bool   `json:"peek"`
		Allowed      bool   `json:"allowed"`
		Never        bool   `json:"never"`
		Late         *bool  `json:"late"`
		RetryAfterMs *int64 `json:"retryAfterMs"`
		DelayMs      *int64 `json:"delayMs"`
		Estimate     string `json:"estimate"`
		Note         string `json:"note"`
	} `json:"requests"`
}

// vectorDelay is leaky-bucket's delay: a number of permits, or "nodelay".
type vectorDelay int64

func (d *vectorDelay) UnmarshalJSON(b []byte) error {
	if string(b) == `"nodelay"` {
		*d = NoDelay
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("delay %s is neither a whole number of permits nor \"nodelay\"", b)
	}
	*d = vectorDelay(n)
	return nil
}

// parseFraction reads "4" or "9/2".
func parseFraction(s string) (Fraction, error) {
	num, den, isFrac := strings.Cut(s, "/")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return Fraction{}, fmt.Errorf("estimate %q: %v", s, err)
	}
	d := int64(1)
	if isFrac {
		if d, err = strconv.ParseInt(den, 10, 64); err != nil || d <= 0 {
			return Fraction{}, fmt.Errorf("estimate %q: bad denominator", s)
		}
	}
	return Fraction{n, d}, nil
}

func TestVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vector files in testdata: %v", err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var vectors []vector
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&vectors); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, v := range vectors {
			seen[v.Policy] = true
			t.Run(filepath.Base(file)+"/"+v.Name, func(t *testing.T) {
				replayVector(t, v)
			})
		}
	}
	for _, name := range Names {
		if !seen[name] {
			t.Errorf("no vector exercises %s", name)
		}
	}
}

func replayVector(t *testing.T, v vector) {
	t.Helper()
	pol := mustNew(t, v.Policy, Params{
		Limit: v.Params.Limit, WindowMs: v.Params.WindowMs,
		Arithmetic: v.Params.Arithmetic, Buckets: v.Params.Buckets, Burst: v.Params.Burst,
		Delay: int64(v.Params.Delay),
	})
	for i, r := range v.Requests {
		var want Fraction
		if r.Estimate != "" {
			var err error
			if want, err = parseFraction(r.Estimate); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		if r.Peek {
			if got := pol.Peek(r.Key, r.At); r.Estimate != "" && !sameFraction(got, want) {
				t.Errorf("step %d: Peek(%d, %d) = %v, want %s", i, r.Key, r.At, got, r.Estimate)
			}
			continue
		}
		d := pol.Decide(r.Key, r.At, r.Cost)
		call := fmt.Sprintf("step %d: Decide(%d, %d, %d)", i, r.Key, r.At, r.Cost)
		if d.Allowed != r.Allowed {
			t.Errorf("%s: allowed = %v, want %v", call, d.Allowed, r.Allowed)
		}
		if d.Never != r.Never {
			t.Errorf("%s: never = %v, want %v", call, d.Never, r.Never)
		}
		if r.Late != nil && d.Late != *r.Late {
			t.Errorf("%s: late = %v, want %v", call, d.Late, *r.Late)
		}
		if r.RetryAfterMs != nil && d.RetryAfterMs != *r.RetryAfterMs {
			t.Errorf("%s: retryAfterMs = %d, want %d", call, d.RetryAfterMs, *r.RetryAfterMs)
		}
		if r.DelayMs != nil && d.DelayMs != *r.DelayMs {
			t.Errorf("%s: delayMs = %d, want %d", call, d.DelayMs, *r.DelayMs)
		}
		if r.Estimate != "" && !sameFraction(d.Estimate, want) {
			t.Errorf("%s: estimate = %v (%v), want %s", call, d.Estimate, d.Estimate.Reduced(), r.Estimate)
		}
	}
}
