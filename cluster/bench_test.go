package cluster

import (
	"math/rand/v2"
	"testing"

	"github.com/windowlab/playground/policies"
)

// BenchmarkSweep is the lesson's chart at a lesson's size: 1,000 requests
// over ten windows, N = 2, 4, 8 against eight sync intervals (24 runs).
func BenchmarkSweep(b *testing.B) {
	p := policies.Params{Limit: 10, WindowMs: 1000}
	r := rand.New(rand.NewPCG(1, 2))
	var reqs []Request
	for at := int64(0); len(reqs) < 1000; at += r.Int64N(20) {
		reqs = append(reqs, Request{Key: policies.Key(r.IntN(4)), At: at, Cost: 1})
	}
	syncs := []int64{10, 25, 50, 100, 250, 500, 1000, 0}
	for _, name := range []string{policies.FixedWindow, policies.SlidingLog, policies.TokenBucket} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Sweep(Config{Policy: name, Params: p}, reqs, nil, syncs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
