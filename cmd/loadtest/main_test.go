package main

import (
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/windowlab/playground/scenario"
)

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"10.0.0.5:8080", false},
		{"example.com:80", false},
		{"0.0.0.0:8080", false},
		{"127.0.0.1", false}, // no port
	}
	for _, tt := range tests {
		if err := checkLoopback(tt.addr); (err == nil) != tt.ok {
			t.Errorf("checkLoopback(%q) = %v, want ok %v", tt.addr, err, tt.ok)
		}
	}
}

func TestRunRefusesUnboundedLoads(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "flood"},
		{"-rate", "1000", "-duration", "30s"}, // 30,000 requests
		{"-duration", "10m"},
		{"-mode", "streams", "-streams", "5000"},
		{"-addr", "192.0.2.1:80"},
	} {
		err := run(args, io.Discard, io.Discard)
		if _, ok := err.(usageError); !ok {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
}

func TestWorstCaseIsValidAndAtEveryBound(t *testing.T) {
	data, err := json.Marshal(worstCase())
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse(data)
	if err != nil {
		t.Fatalf("the worst case is not a valid scenario: %v", err)
	}
	if len(s.Requests) != scenario.MaxRequests || len(s.Policies) != scenario.MaxPolicies || s.Limit != scenario.MaxLimit {
		t.Errorf("worst case has %d requests, %d policies, limit %d; want every bound", len(s.Requests), len(s.Policies), s.Limit)
	}
}

func TestPct(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, tt := range []struct {
		p    int
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}} {
		if got := pct(d, tt.p); got != tt.want {
			t.Errorf("pct(1..100 ms, %d) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := pct(nil, 99); got != 0 {
		t.Errorf("pct(none, 99) = %v, want 0", got)
	}
}
