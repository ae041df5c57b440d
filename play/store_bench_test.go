package play

import (
	"context"
	"testing"
)

// BenchmarkAction is one clock step on a session of 5,000 requests in the
// default lanes, taken on a bare session and through the in-memory Store's
// Update (the lock, the copies of the clients and lanes, the watchers'
// notice, the copy returned): what keeping sessions as values behind a store
// adds to an action, before any View.
func BenchmarkAction(b *testing.B) {
	full := func(b *testing.B, s *Session) {
		b.Helper()
		for range MaxRequests / MaxPatternCount {
			must(b, "pattern", s.FirePattern(Pattern{Kind: Poisson, Count: MaxPatternCount, SpanMs: 120_000}))
		}
	}
	b.Run("session", func(b *testing.B) {
		s, err := NewSession("bench", DefaultScenario())
		must(b, "new", err)
		full(b, s)
		for b.Loop() {
			must(b, "step", s.Step(1))
		}
	})
	b.Run("store", func(b *testing.B) {
		st := NewStore(nil)
		s, err := st.New(DefaultScenario())
		must(b, "new", err)
		ctx := context.Background()
		_, err = st.Update(ctx, s.ID(), func(s *Session) error { full(b, s); return nil })
		must(b, "fill", err)
		step := func(s *Session) error { return s.Step(1) }
		for b.Loop() {
			_, err := st.Update(ctx, s.ID(), step)
			must(b, "step", err)
		}
	})
}
