package explain

import (
	"context"
	"fmt"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// BenchmarkRun compares a plain run of the largest scenario (every policy,
// scenario.MaxRequests requests over scenario.MaxKeys keys) with one that
// words every decision's headers: web's headersWork is their ratio.
func BenchmarkRun(b *testing.B) {
	s := scenario.Scenario{Limit: 100, WindowMs: 60_000, Policies: []scenario.PolicySpec{
		{Name: "fixed-window"}, {Name: "sliding-log"}, {Name: "sliding-counter"}, {Name: "sliding-counter", Arithmetic: "exact"},
		{Name: "sliding-buckets", Buckets: 6}, {Name: "token-bucket"}, {Name: "gcra"}, {Name: "leaky-bucket"}}}
	for i := range scenario.MaxRequests {
		s.Requests = append(s.Requests, scenario.Request{At: int64(i) * 3, Key: fmt.Sprintf("k%d", i%scenario.MaxKeys), Cost: 1, Count: 1})
	}
	for _, tt := range []struct {
		name string
		run  func(context.Context, scenario.Scenario) (scenario.Result, error)
	}{{"plain", scenario.RunContext}, {"headers", Run}} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := tt.run(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
