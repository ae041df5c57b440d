package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPrintsTheComputedAnswerAndWorking(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"check", "../../exercises/try-it-1-exact.json"}, strings.NewReader(""), &out, &errOut)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, want := range []string{"answer    refused", "33 s", "sliding-counter (exact)", "5 × 9/10 = 4.5 carried", "variants  2 answers over seeds 0 to 19: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCheckRejectsBadFilesWithStatus2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"title": "x", "question": "q", "scenario": "try-it", "ask": "outcome", "at": "soon"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "one exercise file"},
		{[]string{"check", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"check", bad}, "policy: missing"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want it to mention %q", tt.args, err, tt.want)
		}
		if code := exitCode(err, &errOut); code != 2 {
			t.Errorf("%v: exit status %d, want 2", tt.args, code)
		}
	}
}

// check reads standard input for -, as simulate does.
func TestCheckReadsStandardInput(t *testing.T) {
	data, err := os.ReadFile("../../exercises/try-it-1-exact.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"check", "-"}, bytes.NewReader(data), &out, &errOut); err != nil {
		t.Fatalf("check -: %v", err)
	}
	if !strings.Contains(out.String(), "answer    refused") {
		t.Errorf("check - printed no answer:\n%s", out.String())
	}
	err = run(context.Background(), []string{"check", "-"}, strings.NewReader(`{"title": "x"}`), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "standard-input: question: missing") {
		t.Errorf("check - with a bad exercise: err = %v, want it to name the problem", err)
	}
	if code := exitCode(err, &errOut); code != 2 {
		t.Errorf("check - with a bad exercise: exit status %d, want 2", code)
	}
}

// check refuses the three mistakes an author makes most, each with exit
// status 2 and a message naming the field: a placeholder nothing fills, a
// story the policies contradict and a vary block of the wrong shape.
func TestCheckRefusesAnAuthorsMistakes(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, file, want string
	}{
		{"unknown placeholder",
			`{"title": "x", "question": "limit {limit} {bogus}", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s"}`,
			"question: {bogus} is not a placeholder"},
		{"story the data contradict",
			`{"title": "x", "question": "A request at {at} is refused. When is the first moment one passes?", "scenario": {"limit": 5, "windowMs": 30000, "requests": [{"at": 30000, "count": 5}]}, "ask": "first-admit", "policy": "sliding-counter/floor", "at": "10 s"}`,
			"question: it says the request at {at} (10 s) is refused, but the sliding counter (floor) admits it"},
		// Only the asked instant moves: the fill at 30 s always lets the
		// next request in at 60.001 s.
		{"variants with one answer",
			`{"title": "x", "question": "Limit {limit} per {window}. A request at {at} is refused. When does one pass?", "scenario": {"limit": 5, "windowMs": 30000, "requests": [{"at": 30000, "count": 5}]}, "ask": "first-admit", "policy": "sliding-counter/floor", "at": "40 s", "vary": {"at": {"from": "31 s", "to": "59 s", "step": "1 s"}}}`,
			"vary: seeds 0 to 19 give 1 answer(s) (60.001 s)"},
		{"no vary",
			`{"title": "x", "question": "q at {at}", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s"}`,
			"vary: missing"},
		{"malformed vary",
			`{"title": "x", "question": "q at {at}", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s", "vary": {"limit": {"from": 1, "to": 99999}}}`,
			"vary.limit: a JSON object, where the field takes a list of two whole numbers [from, to]"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
		if err := os.WriteFile(file, []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"check", file}, strings.NewReader(""), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to say %q", tt.name, err, tt.want)
		}
		if code := exitCode(err, &errOut); code != 2 {
			t.Errorf("%s: exit status %d, want 2", tt.name, code)
		}
		if strings.Contains(out.String(), "answer") {
			t.Errorf("%s: check printed an answer for a refused file:\n%s", tt.name, out.String())
		}
	}
}

// An exercise about the scenario's own lane ("policy": "#1") is named by
// what that lane is, not by its bare index, in check's report and in the
// problems it refuses a file for.
func TestCheckNamesTheScenariosOwnLane(t *testing.T) {
	const lane = "#1 (fixed-window on 3 servers, sync 500 ms)"
	file := func(policy, question string) string {
		return `{"title": "x", "question": "` + question + `", "scenario": {"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500}], "requests": [{"at": 0, "count": 15}]}, "ask": "outcome", "policy": "` + policy + `", "at": "100 ms", "vary": {"limit": [3, 9]}}`
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name, file, want string
		status           int
	}{
		{"report", file("#1", "How is the request at {at} decided?"), "policy    " + lane + "\n", 0},
		{"story the data contradict", file("#1", "A request at {at} is admitted. How is it decided?"),
			"question: it says the request at {at} (100 ms) is admitted, but lane " + lane + " refuses it", 2},
		{"no such lane", file("#2", "How is the request at {at} decided?"), `policy: "#2": the scenario's lanes are ` + lane, 2},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"check", path}, strings.NewReader(""), &out, &errOut)
		got := out.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: check said\n%s\nwant it to contain %q", tt.name, got, tt.want)
		}
		if code := exitCode(err, &errOut); code != tt.status {
			t.Errorf("%s: exit status %d, want %d", tt.name, code, tt.status)
		}
	}
}

// The shipped decks check, printing every question with its answers; a
// broken deck is refused with status 2 naming the step and the field.
func TestCheckDecks(t *testing.T) {
	for _, deck := range []string{"introduction", "several-servers"} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"check", "../../decks/" + deck + ".json"}, strings.NewReader(""), &out, &errOut); err != nil {
			t.Fatalf("check %s: %v", deck, err)
		}
		if !strings.Contains(out.String(), "asks  ") || !strings.Contains(out.String(), "countdown") {
			t.Errorf("check %s prints no question:\n%s", deck, out.String())
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"check", "../../decks/introduction.json"}, strings.NewReader(""), &out, &out)
	// The car park at 31 s: the fixed window has turned over, the exact
	// counter still carries 9/10 of the first window's five.
	for _, want := range []string{"fixed-window             admitted", "sliding-counter (exact)  refused"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("introduction deck lacks %q:\n%s", want, out.String())
		}
	}
	broken := `{"title": "x", "steps": [{"title": "a", "scenario": "car-park"}, {"title": "b", "scenario": "car-park", "ask": {"kind": "admit", "at": "42 s", "lanes": [8]}}]}`
	var errOut bytes.Buffer
	err := run(context.Background(), []string{"check", "-"}, strings.NewReader(broken), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "steps[1].ask: there is no lane 8") {
		t.Errorf("a broken deck: %v, want an error naming steps[1].ask and lane 8", err)
	}
	if code := exitCode(err, &errOut); code != 2 {
		t.Errorf("a broken deck: exit status %d, want 2", code)
	}
}
