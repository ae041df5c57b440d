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
	for _, want := range []string{"answer    refused", "33 s", "sliding-counter (exact)", "5 × 9/10 = 4.5 carried"} {
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
