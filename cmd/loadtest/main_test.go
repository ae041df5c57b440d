package main

import (
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/cli"
	"github.com/windowlab/playground/room"
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
		{"-mode", "room", "-followers", "0"},
		{"-mode", "room", "-followers", "1001"}, // above the room's bound and the stream cap
		{"-mode", "room", "-fire-every", "10ms"},
		{"-mode", "room", "-duration", "6m"},
		{"-mode", "room", "-addr", "10.0.0.5:8080"},
		{"-mode", "room", "-addr", "0.0.0.0:8080"},
		{"-mode", "abuse"},                                               // which finding?
		{"-mode", "abuse", "-abuse", "everything"},                       // no such finding
		{"-mode", "abuse", "-abuse", "headers", "-addr", "192.0.2.1:80"}, // not loopback
		{"-mode", "sessions", "-flood", "0"},
		{"-mode", "sessions"},                                       // 500 a second for the default 30 s: 15,000 requests
		{"-mode", "sessions", "-flood", "2000", "-duration", "10s"}, // 20,000
	} {
		err := run(args, io.Discard, io.Discard)
		if _, ok := err.(cli.Usage); !ok {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
}

func TestWorstCaseIsValidAndAtEveryBound(t *testing.T) {
	data, err := json.Marshal(scenario.WorstCase())
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

// The room mode must reach the 1,000 followers without going past
// the room's own bound (a larger run would only measure refusals).
func TestMaxFollowersIsTheRoomsBound(t *testing.T) {
	if got, want := maxFollowers(), min(room.DefaultBounds().Followers, maxStreams); got != want {
		t.Errorf("maxFollowers() = %d, want %d", got, want)
	}
	if maxFollowers() < 1000 {
		t.Errorf("maxFollowers() = %d: the issue's 1,000 followers cannot be measured", maxFollowers())
	}
}

func TestRequestCountAndProcessCPU(t *testing.T) {
	for _, tt := range []struct {
		line string
		want string
	}{
		{`data: fragments <p id="room-status">Clock 12 s · 17 requests</p>`, "17"},
		{`data: fragments <p>no count here</p>`, ""},
	} {
		got := ""
		if m := requestCount.FindStringSubmatch(tt.line); m != nil {
			got = m[1]
		}
		if got != tt.want {
			t.Errorf("request count in %q = %q, want %q", tt.line, got, tt.want)
		}
	}
	// Burn some CPU, then read this process's time both ways: /proc's
	// ticks are 10 ms, so the two agree to a few ticks.
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
	}
	proc, self := processCPU(os.Getpid()), selfCPU()
	if proc <= 0 || (self-proc).Abs() > 50*time.Millisecond {
		t.Errorf("CPU time from /proc %v, from getrusage %v: want both, within 50 ms", proc, self)
	}
}

func TestStatusCountReadsSingularAndPlural(t *testing.T) {
	tests := []struct {
		line string
		n    int
		ok   bool
	}{
		{`<p id="room-status">300 phones following · 0 requests · limit 5 per 30 s`, 0, true},
		{`<p id="room-status">300 phones following · 1 request · limit 5 per 30 s`, 1, true},
		{`<p id="room-status">1 phone following · 12 requests · limit 5 per 30 s`, 12, true},
		{`<p id="room-status">1 phone following · limit 5 per 30 s`, 0, false},
		{`<p id="room-status">1 phone following · 3 requesters`, 0, false},
	}
	for _, tt := range tests {
		n, ok := statusCount([]byte(tt.line))
		if n != tt.n || ok != tt.ok {
			t.Errorf("statusCount(%q) = %d, %v; want %d, %v", tt.line, n, ok, tt.n, tt.ok)
		}
	}
}
