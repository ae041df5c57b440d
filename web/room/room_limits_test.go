package room

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/web"
)

// rateFields reads the RateLimit-Policy and RateLimit fields of h with a
// structured-field parser (RFC 9651) and returns each one's item and
// parameters.
func rateFields(t *testing.T, h http.Header) (policy, limit map[string]int64, policyName, limitName string) {
	t.Helper()
	read := func(field string, keys ...string) (map[string]int64, string) {
		t.Helper()
		list, err := httpsfv.UnmarshalList(h.Values(field))
		if err != nil || len(list) != 1 {
			t.Fatalf("%s: %q does not parse as a list of one item: %v", field, h.Values(field), err)
		}
		item, ok := list[0].(httpsfv.Item)
		if !ok {
			t.Fatalf("%s: %q is not an item", field, h.Get(field))
		}
		name, ok := item.Value.(string)
		if !ok {
			t.Fatalf("%s: %q does not name its policy with a string", field, h.Get(field))
		}
		out := map[string]int64{}
		for _, k := range keys {
			v, ok := item.Params.Get(k)
			n, isInt := v.(int64)
			if !ok || !isInt {
				t.Fatalf("%s: %q has no integer parameter %s", field, h.Get(field), k)
			}
			out[k] = n
		}
		return out, name
	}
	policy, policyName = read("RateLimit-Policy", "q", "w")
	limit, limitName = read("RateLimit", "r", "t")
	return policy, limit, policyName, limitName
}

// checkRefusal checks a 429: Retry-After in whole seconds, and the two
// RateLimit fields naming the policy, with nothing remaining and the
// quota whole again no later than Retry-After says.
func checkRefusal(t *testing.T, what string, res response, wantPolicy string, quota int64) {
	t.Helper()
	if res.status != http.StatusTooManyRequests {
		t.Fatalf("%s: status %d, want 429", what, res.status)
	}
	retry, err := strconv.Atoi(res.header.Get("Retry-After"))
	if err != nil || retry < 1 {
		t.Fatalf("%s: Retry-After %q, want whole seconds of at least 1", what, res.header.Get("Retry-After"))
	}
	pol, lim, pname, lname := rateFields(t, res.header)
	if pname != wantPolicy || lname != wantPolicy {
		t.Errorf("%s: the fields name %q and %q, want %q", what, pname, lname, wantPolicy)
	}
	if pol["q"] != quota {
		t.Errorf("%s: RateLimit-Policy q=%d, want %d", what, pol["q"], quota)
	}
	if lim["r"] != 0 || lim["t"] != int64(retry) {
		t.Errorf("%s: RateLimit r=%d t=%d with Retry-After %d, want r=0 and t equal to Retry-After", what, lim["r"], lim["t"], retry)
	}
	if !strings.Contains(res.body, "Retry-After") && !strings.Contains(res.body, "wait") {
		t.Errorf("%s: the body does not say to wait: %.200s", what, res.body)
	}
}

// untilRefused sends up to max requests and returns how many were admitted
// before the first 429, and the 429.
func untilRefused(t *testing.T, what string, max int, send func() response) (int, response) {
	t.Helper()
	for i := range max {
		res := send()
		if res.status == http.StatusTooManyRequests {
			return i, res
		}
		if _, _, pname, _ := rateFields(t, res.header); pname == "" {
			t.Fatalf("%s: step %d admitted without the RateLimit fields", what, i+1)
		}
	}
	t.Fatalf("%s: %d requests from one address, none refused", what, max)
	return 0, response{}
}

// TestTheServerLimitsItsClientsWithItsOwnPolicies: join codes, pairing
// redemptions, answers and /api/simulate are each refused per client with
// 429 and the fields the lessons teach, read by a structured-field parser;
// another client is served meanwhile.
func TestTheServerLimitsItsClientsWithItsOwnPolicies(t *testing.T) {
	// The server's limits count on the fixture's clock, held still but
	// where a step says it moves: the counts are exact.
	fx := newFairFixture(t, nil, nil, false, func(c *web.Config, clk *storetest.Clock) { c.Now = clk.Now })
	presenter := fx.deviceFrom(t, "192.0.2.1")
	id, _, sess := fx.startRoom(t, presenter)
	guesser := fx.deviceFrom(t, "198.51.100.3")
	other := fx.deviceFrom(t, "203.0.113.3")

	t.Run("join codes", func(t *testing.T) {
		n, res := untilRefused(t, "join codes", 200, func() response { return guesser.get("/join?code=ABCDE") })
		if n < 120 {
			t.Errorf("%d codes admitted before the first refusal, want the burst of 120", n)
		}
		checkRefusal(t, "a join code past the limit", res, policies.GCRA, 120)
		if res := other.get("/join?code=ABCDE"); res.status == http.StatusTooManyRequests {
			t.Error("another address's code was refused")
		}
	})
	t.Run("pairing", func(t *testing.T) {
		form := []string{"Content-Type", "application/x-www-form-urlencoded"}
		n, res := untilRefused(t, "pairing", 30, func() response { return guesser.post("/room/"+id+"/pair/redeem", "code=22222222", form...) })
		if n != 10 {
			t.Errorf("%d redemptions admitted before the first refusal, want 10", n)
		}
		checkRefusal(t, "a pairing try past the limit", res, policies.SlidingLog, 10)
	})
	t.Run("answers", func(t *testing.T) {
		if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
			t.Fatalf("ask: status %d", res.status)
		}
		lanes := len(sess.Scenario().Specs())
		phone := fx.deviceFrom(t, "198.51.100.4")
		if res := phone.get("/room/" + id); res.status != http.StatusOK {
			t.Fatalf("joining: status %d", res.status)
		}
		answer := func() response { return phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1")) }
		n, res := untilRefused(t, "answers", 60, answer)
		if n != 20 {
			t.Errorf("%d answers admitted before the first refusal, want 20", n)
		}
		checkRefusal(t, "an answer past the limit", res, policies.TokenBucket, 20) // q: the bucket's capacity, its burst
		// The bucket refills one a second.
		fx.clk.Advance(time.Second)
		if n, _ := untilRefused(t, "answers a second later", 60, answer); n != 1 {
			t.Errorf("%d answers admitted a second after the refusal, want 1", n)
		}
	})
	t.Run("simulate", func(t *testing.T) {
		body := `{"limit": 5, "windowMs": 1000, "requests": [{"at": 0}]}`
		json := []string{"Content-Type", "application/json"}
		n, res := untilRefused(t, "simulate", 60, func() response { return guesser.post("/api/simulate", body, json...) })
		if n != 10 {
			t.Errorf("%d scenarios admitted before the first refusal, want 10", n)
		}
		checkRefusal(t, "a scenario past the limit", res, policies.TokenBucket, 10) // q: the burst
		if !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
			t.Errorf("the API's 429 is %q, want JSON", res.header.Get("Content-Type"))
		}
		if res := other.post("/api/simulate", body, json...); res.status != http.StatusOK {
			t.Errorf("another address's scenario: status %d, want 200", res.status)
		}
	})
}
