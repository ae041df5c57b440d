package play

import (
	"compress/gzip"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/fanout"
)

// benchSession holds all seven lanes and play.MaxRequests requests.
func benchSession(b *testing.B) *play.Session {
	b.Helper()
	sc := scenario.Scenario{Limit: 100, WindowMs: 60_000, Policies: []scenario.PolicySpec{
		{Name: policies.FixedWindow}, {Name: policies.SlidingLog},
		{Name: policies.SlidingCounter, Arithmetic: policies.Floor}, {Name: policies.SlidingCounter, Arithmetic: policies.Exact},
		{Name: policies.SlidingBuckets, Buckets: 6}, {Name: policies.TokenBucket}, {Name: policies.GCRA},
	}}
	sess, err := play.NewSession("bench", sc)
	if err != nil {
		b.Fatal(err)
	}
	for range play.MaxRequests / play.MaxPatternCount {
		if err := sess.FirePattern(play.Pattern{Kind: play.Poisson, Count: play.MaxPatternCount, SpanMs: 120_000}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sess.Select(play.MaxRequests - 1); err != nil {
		b.Fatal(err)
	}
	return sess
}

// BenchmarkPlayAction applies one action (a 100 ms step of the clock, which
// changes every lane) to a session of 7 lanes × 5,000 requests, replays it
// and renders the regions that changed: the work of one stream update.
func BenchmarkPlayAction(b *testing.B) {
	sess := benchSession(b)
	r := httptest.NewRequest("GET", "/play", nil)
	cache := &shareCache{}
	p := &playground{s: &web.Server{}}
	page := func() []fanout.Region {
		rs, err := regions(p.pageDataCached(r, sess, cache), r)
		if err != nil {
			b.Fatal(err)
		}
		return rs
	}
	sent := map[string]string{}
	for _, rg := range page() {
		sent[rg.ID] = rg.HTML
	}
	var bytes, lanes, patches int
	var lastPatch strings.Builder
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := sess.Step(100); err != nil {
			b.Fatal(err)
		}
		patches++
		lastPatch.Reset()
		for _, rg := range page() {
			if rg.Full || sent[rg.ID] == rg.HTML {
				continue // a stream's first frame alone sends the whole list
			}
			sent[rg.ID] = rg.HTML
			bytes += len(rg.HTML)
			lastPatch.WriteString(rg.HTML)
			if rg.In != "" {
				lanes++
			}
		}
	}
	b.ReportMetric(float64(bytes)/float64(patches), "bytes/patch")
	b.ReportMetric(float64(bytes)/float64(max(lanes, 1)), "bytes/lane")
	// What the wire carries: datastar-go compresses streams.
	var z countingWriter
	zw := gzip.NewWriter(&z)
	_, _ = io.WriteString(zw, lastPatch.String())
	zw.Close()
	b.ReportMetric(float64(z.n), "gzip-bytes/patch")
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
