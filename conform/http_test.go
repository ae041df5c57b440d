package conform_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/conform"
	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// headersServer enforces gcra on the real clock and answers with the
// headers explain.Headers words (Retry-After, RateLimit-Policy,
// RateLimit), as the app's own server would; remainingOff is added to the
// RateLimit field's r, to break it.
func headersServer(t *testing.T, p policies.Params, remainingOff int64) string {
	t.Helper()
	lim, err := limiter.NewConcurrent(policies.GCRA, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	norm, _ := policies.Normalised(policies.GCRA, p)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := scenario.KeyOf(r.Header.Get("X-Client-Key"))
		d := lim.Decide(key, time.Now().UnixMilli(), 1)
		status := http.StatusOK
		for _, h := range explain.Headers(explain.Policy{Name: policies.GCRA, Params: norm}, d, lim, key) {
			switch h.Name {
			case "Status":
				status, _ = strconv.Atoi(strings.Fields(h.Value)[0])
			case "RateLimit":
				if remainingOff != 0 {
					h.Value = strings.Replace(h.Value, ";r=", ";r="+strconv.FormatInt(remainingOff, 10), 1)
				}
				w.Header().Set(h.Name, h.Value)
			default:
				w.Header().Set(h.Name, h.Value)
			}
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The endpoint's runs wait on real time (the server reads its clock).
func TestHTTPHeadersAreCompared(t *testing.T) {
	p := policies.Params{Limit: 2, WindowMs: 1000, Burst: 2}
	opts := []conform.Option{conform.CostOne(), conform.MaxRequests(30)}
	good := conform.HTTP("the app's headers", conform.HTTPOptions{URL: headersServer(t, p, 0), Reports: conform.RetryAfter | conform.Headers, ToleranceMs: 150})
	conform.Check(t, good, policies.GCRA, p, opts...)

	// r=1 prefixed to the remaining count: "r=10" where the policy says 0.
	bad := conform.HTTP("an r that is off", conform.HTTPOptions{URL: headersServer(t, p, 1), Reports: conform.RetryAfter | conform.Headers, ToleranceMs: 150})
	rep, err := conform.Run(context.Background(), bad, policies.GCRA, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	assertCaught(t, rep, "RateLimit")
}
