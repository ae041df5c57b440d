package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/windowlab/playground/cluster"
)

func TestLaneResolvesOwnLanesAndRefs(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": ["sliding-log", {"name": "fixed-window", "nodes": 3, "syncMs": 500}], "requests": [{"at": 0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Lane("#2")
	if err != nil || spec.Name != "fixed-window" || spec.Nodes != 3 || spec.SyncMs != 500 {
		t.Errorf(`Lane("#2") = %+v, %v; want fixed-window on 3 servers syncing every 500 ms`, spec, err)
	}
	if spec, err := s.Lane("gcra/4"); err != nil || spec.Name != "gcra" || spec.Burst != 4 {
		t.Errorf(`Lane("gcra/4") = %+v, %v; want gcra with burst 4`, spec, err)
	}
	for _, ref := range []string{"#0", "#3", "#x"} {
		if _, err := s.Lane(ref); err == nil || !strings.Contains(err.Error(), "lanes #1 to #2") {
			t.Errorf("Lane(%q) = %v, want an error naming lanes #1 to #2", ref, err)
		}
	}
}

func TestSweepRunsTheScenariosRequests(t *testing.T) {
	// Fifteen at 0 s (one entry with a count) and a probe, which decides
	// nothing and is left out.
	s, err := Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500, "skewMs": [0, 0, 300]}], "requests": [{"at": 0, "count": 15}, {"at": 10, "probe": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	points, err := Sweep(s, s.Specs()[0], nil, []int64{0})
	if err != nil {
		t.Fatal(err)
	}
	want := []cluster.Point{
		{Nodes: 2, Admitted: 10, Single: 5, OverAdmission: 5},
		{Nodes: 4, Admitted: 15, Single: 5, OverAdmission: 10},
		{Nodes: 8, Admitted: 15, Single: 5, OverAdmission: 10},
	}
	if fmt.Sprint(points) != fmt.Sprint(want) {
		t.Errorf("Sweep = %v\nwant    %v", points, want)
	}
	for _, tt := range []struct {
		nodes []int
		syncs []int64
		want  string
	}{
		{[]int{1}, []int64{0}, "nodes: 1 is out of range [2, 16]"},
		{[]int{2}, []int64{-1}, "syncs: -1 is out of range"},
	} {
		if _, err := Sweep(s, s.Specs()[0], tt.nodes, tt.syncs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Sweep(nodes %v, syncs %v) = %v, want an error containing %q", tt.nodes, tt.syncs, err, tt.want)
		}
	}
}

func TestRoundTripsOfALane(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": ["fixed-window", {"name": "fixed-window", "nodes": 3, "syncMs": 500}, {"name": "fixed-window", "nodes": 3, "central": true}], "requests": [{"at": 0, "count": 6}, {"at": 600, "count": 9}, {"at": 1200, "count": 9}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{0, 6, 24} {
		if got := s.Specs()[i].RoundTrips(s); got != want {
			t.Errorf("lane %d: RoundTrips = %d, want %d", i+1, got, want)
		}
	}
}
