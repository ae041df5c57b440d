package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
)

// TestEveryBoundFieldHasItsSignal: Datastar turns data-bind-pattern-seconds
// into the signal patternSeconds; a field whose attribute names no declared
// signal would send nothing, and a declared signal no field binds is dead.
func TestEveryBoundFieldHasItsSignal(t *testing.T) {
	v := play.View{ID: "x", Scenario: play.DefaultScenario(), Client: "default"}
	var buf bytes.Buffer
	if err := PlayPageView(PlayPage{View: v, Base: "/play/x"}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var declared map[string]any
	if err := json.Unmarshal([]byte(doc.Find("#play").AttrOr("data-signals", "")), &declared); err != nil {
		t.Fatal(err)
	}
	camel := regexp.MustCompile(`-([a-z])`)
	var bound []string
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			if name, ok := strings.CutPrefix(a.Key, "data-bind-"); ok {
				bound = append(bound, camel.ReplaceAllStringFunc(name, func(m string) string { return strings.ToUpper(m[1:]) }))
			}
		}
	})
	for _, b := range bound {
		if _, ok := declared[b]; !ok {
			t.Errorf("a field binds %q, which the page does not declare", b)
		}
	}
	// The shown value of each number field (k, burst, delay) is sent back
	// with the form, not bound.
	var shown []string
	for _, f := range play.Fields() {
		shown = append(shown, f.Option.Name+"Shown")
	}
	for name := range declared {
		if !slices.Contains(bound, name) && !slices.Contains(shown, name) {
			t.Errorf("the page declares %q, which no field binds", name)
		}
	}
}
