package playground_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/policies"
)

// These tests hold the README and docs/ to the repository: the README stays
// a newcomer's page, its test command is the one CI runs, and every relative
// link and image in them points at a file (and heading) that exists.

const readmeMaxLines = 150

func TestReadmeStaysShort(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: measurements, bounds and design notes belong in docs/", n, readmeMaxLines)
	}
}

// TestReadmeTestCommandIsCIs: .ci/run runs TEST_CMD, and the README tells a
// newcomer to run the same command in a sh block of its own.
func TestReadmeTestCommandIsCIs(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^TEST_CMD='([^']+)'$`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/run has no TEST_CMD='…' line")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := "```sh\n" + string(m[1]) + "\n```"
	if !strings.Contains(string(readme), block) {
		t.Errorf("README.md has no sh block holding exactly .ci/run's TEST_CMD %q", m[1])
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinksResolve checks every relative link and image of README.md and
// docs/*.md: the file exists, and a #fragment names one of its headings.
func TestDocLinksResolve(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([]string{"README.md"}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %q: %v", doc, target, err)
				continue
			}
			if fragment == "" {
				continue
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %q: %v", doc, target, err)
				continue
			}
			if !hasHeading(string(text), fragment) {
				t.Errorf("%s: link %q: %s has no heading whose anchor is #%s", doc, target, path, fragment)
			}
		}
	}
}

// hasHeading reports whether markdown has a heading whose GitHub anchor is
// fragment: lower case, spaces as hyphens, other punctuation dropped.
func hasHeading(markdown, fragment string) bool {
	for line := range strings.Lines(markdown) {
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var anchor strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				anchor.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				anchor.WriteRune(r)
			}
		}
		if anchor.String() == fragment {
			return true
		}
	}
	return false
}

// TestDocsNameEveryPreset: docs/playground.md lists every preset the
// playground and a room's menu offer, by the label the list shows and its
// short link's name, so a preset added to lessons.Presets is not left out;
// it describes each field of the servers form; and rooms.md points its
// menu of presets there and says how a room asks about several servers.
func TestDocsNameEveryPreset(t *testing.T) {
	play, err := os.ReadFile("docs/playground.md")
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := os.ReadFile("docs/rooms.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lessons.Presets {
		if want := p.Label + " (`" + p.Name + "`)"; !strings.Contains(string(play), want) {
			t.Errorf("docs/playground.md does not list the preset %s as %q", p.Name, want)
		}
	}
	for _, want := range []string{"## Servers per lane", "**Servers**", "**Sync every (ms)**", "**Route**", "**Central store**", "**Clock offsets (ms)**"} {
		if !strings.Contains(string(play), want) {
			t.Errorf("docs/playground.md does not describe %q of the servers form", want)
		}
	}
	for _, want := range []string{"(playground.md#presets)", "(playground.md#servers-per-lane)", "### Several servers"} {
		if !strings.Contains(string(rooms), want) {
			t.Errorf("docs/rooms.md lacks %q", want)
		}
	}
}

// TestDocsListTheRoomsQuestionKinds: the README's and docs/rooms.md's
// "Ask the room" step lists the room's kinds of question by their menu
// labels, every one and no other, so neither falls behind the menu.
func TestDocsListTheRoomsQuestionKinds(t *testing.T) {
	var labels []string
	for _, k := range ask.RoomKinds() {
		label, _ := k.Menu()
		labels = append(labels, label)
	}
	for _, doc := range []string{"README.md", "docs/rooms.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`\*\*Ask the room\*\*:? \(([^)]*)\)`).FindSubmatch(b)
		if m == nil {
			t.Errorf("%s: no \"**Ask the room** (…)\" listing the kinds of question", doc)
			continue
		}
		listed := string(m[1])
		for _, l := range labels {
			if !strings.Contains(listed, l) {
				t.Errorf("%s lists the room's questions as %q, without %q", doc, listed, l)
			}
		}
		if n := strings.Count(listed, "?"); n != len(labels) {
			t.Errorf("%s lists %d questions (%q), the room's menu %d: %v", doc, n, listed, len(labels), labels)
		}
	}
}

// TestScenarioDocNamesEveryPolicy: docs/scenario.md's list of the names a
// policy may have is the registry's, in its order, so that a policy added
// there (as leaky-bucket was) is not missing from the format's page.
func TestScenarioDocNamesEveryPolicy(t *testing.T) {
	b, err := os.ReadFile("docs/scenario.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`A policy is a name \(([^)]*)\)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/scenario.md has no line 'A policy is a name (…)'")
	}
	var named []string
	for _, n := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(m[1], -1) {
		named = append(named, string(n[1]))
	}
	if !slices.Equal(named, policies.Names) {
		t.Errorf("docs/scenario.md names the policies %v; the registry has %v", named, policies.Names)
	}
}
