package lessons

import (
	"strings"
	"testing"
)

// A lane on several servers says in its table, in words, which server
// decided each request and what it had not yet heard of; a one-server lane
// beside it says nothing of servers.
func TestLanesTableNamesTheDecidingNode(t *testing.T) {
	lib, l := predictLib(t, "```lanes\n"+`{"caption": "three at once", "scenario": {"limit": 5, "windowMs": 1000, "policies": ["fixed-window", {"name": "fixed-window", "nodes": 3}], "requests": [{"at": 0, "count": 3}]}}`+"\n```\n")
	r, _ := renderDoc(t, lib, l, nil)
	if len(r.Tables) != 1 {
		t.Fatalf("%d tables, want 1", len(r.Tables))
	}
	want := []string{
		"admitted (node 1 decided first: the others had admitted nothing yet)",
		"admitted (node 2 never hears of the request node 1 admitted in the last window (the nodes never sync))",
		"admitted (node 3 never hears of the 2 requests nodes 1 and 2 admitted in the last window (the nodes never sync))",
	}
	for i, row := range r.Tables[0].Rows {
		if got := row[len(row)-1]; got != want[i] {
			t.Errorf("request %d on 3 nodes: %q, want %q", i+1, got, want[i])
		}
		if one := row[len(row)-2]; strings.Contains(one, "node") {
			t.Errorf("request %d on one server: %q names a node", i+1, one)
		}
	}
}

// A central store decides every request itself, so a sync interval on a
// central lane does nothing; written in a shared scenario, it shows in the
// playground's form for that preset as if it mattered. No shared scenario
// gives one.
func TestNoSharedScenarioSyncsACentralStore(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range lib.Scenarios {
		for i, p := range s.Specs() {
			if p.Central && p.SyncMs != 0 {
				t.Errorf("scenario %s, lane #%d: a central store with syncMs %d; drop it: servers that ask one store have nothing to sync", name, i+1, p.SyncMs)
			}
		}
	}
}
