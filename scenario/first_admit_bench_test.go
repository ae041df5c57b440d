package scenario

import "testing"

// BenchmarkFirstAdmittedOnSeveralServers is the first-admit search on a lane
// of three servers that never sync, at the instant after a full window:
// where a server's retryAfter is not the lane's answer, the search tries
// instants one by one.
func BenchmarkFirstAdmittedOnSeveralServers(b *testing.B) {
	for _, c := range []struct {
		name string
		spec PolicySpec
	}{
		{"one server", PolicySpec{Name: "sliding-log"}},
		{"3 servers, sync 500 ms", PolicySpec{Name: "sliding-log", Deployment: Deployment{Nodes: 3, SyncMs: 500}}},
		{"3 servers, never sync", PolicySpec{Name: "sliding-log", Deployment: Deployment{Nodes: 3}}},
		{"3 servers, sync 500 ms, skewed", PolicySpec{Name: "fixed-window", Deployment: Deployment{Nodes: 3, SyncMs: 500, SkewMs: skews(0, 300, 200)}}},
		{"3 servers, random route", PolicySpec{Name: "token-bucket", Deployment: Deployment{Nodes: 3, SyncMs: 1000, Route: "random", Seed: 7}}},
	} {
		s := Scenario{Limit: 5, WindowMs: 60_000, Policies: []PolicySpec{c.spec}}
		for i := range 40 {
			s.Requests = append(s.Requests, Request{At: int64(i) * 100, Count: 1, Cost: 1})
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := FirstAdmitted(s, c.spec, Request{At: 4_000, Count: 1, Cost: 1}, 3*60_000); err != nil && err != ErrNeverAdmitted {
					b.Fatal(err)
				}
			}
		})
	}
}

func skews(ms ...int64) Skews {
	s, _ := SkewsOf(ms...)
	return s
}
