package lessons

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// An Example is one computed example of a lesson: a block the policies fill
// in (a table, lanes, a ring, a comparison, a calculator), or a claim in
// the prose about what a scenario's policies decide. A lesson asks before
// it shows, so each example should sit inside a ```predict …
// ```predict-end region; Examples says which prediction guards each one.
//
// Claims about the size of a policy's state (memory, bytes-per-key) are not
// examples: they are a policy's layout, the same whatever the traffic, and
// are taught with the memory calculator, which is.
type Example struct {
	Kind string // the block's kind, or "claim"
	// Name tells the example apart within its lesson: a block's caption
	// (or its scenario, or its position among blocks of its kind), a
	// claim's question, before its "=".
	Name string
	// Guard is the id of the prediction whose region holds the example,
	// "" when none does.
	Guard string
}

func (e Example) String() string {
	if e.Kind == "claim" {
		return "claim {{" + e.Name + "}}"
	}
	return "```" + e.Kind + " " + e.Name
}

// exampleKinds are the blocks whose content the policies compute.
var exampleKinds = map[string]bool{
	"scenario-table": true, "lanes": true, "scenario-timeline": true,
	"bucket-ring": true, "compare": true, "memory-calculator": true, "sync-sweep": true, "error-memory": true,
}

// Examples lists the lesson's computed examples in page order, each with
// the prediction that guards it. It reads the file as Render does, without
// computing anything.
func (lib *Library) Examples(l *Lesson) ([]Example, error) {
	_, doc, src, err := lib.parse(l, nil)
	if err != nil {
		return nil, err
	}
	var out []Example
	guard := ""
	predicts, seen := 0, map[string]int{}
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *claimNode:
			body, _, _ := strings.Cut(n.src, "=")
			body = strings.Join(strings.Fields(body), " ")
			if m, _, _ := strings.Cut(body, " "); m != measureMemory && m != measureBytes {
				out = append(out, Example{Kind: "claim", Name: body, Guard: guard})
			}
		case *ast.FencedCodeBlock:
			kind, _ := blockInfo(n, src)
			seen[kind]++
			switch {
			case kind == predictKind:
				predicts++
				guard = predictionID(blockBody(n, src), predicts)
			case kind == predictEndKind:
				guard = ""
			case exampleKinds[kind]:
				out = append(out, Example{Kind: kind, Name: exampleName(blockBody(n, src), seen[kind]), Guard: guard})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out, err
}

// predictionID is the id a ```predict block's prediction gets (see
// parsePrediction), read without resolving its question.
func predictionID(body []byte, n int) string {
	var f struct {
		ID       string `json:"id"`
		Exercise string `json:"exercise"`
	}
	_ = json.Unmarshal(body, &f) // a broken block is Render's problem to report
	switch {
	case f.Exercise != "":
		return f.Exercise
	case f.ID != "":
		return f.ID
	}
	return fmt.Sprintf("prediction-%d", n)
}

// exampleName names a block by its caption, else its scenario's name, else
// its place among the lesson's blocks of that kind.
func exampleName(body []byte, nth int) string {
	var f struct {
		Caption  string          `json:"caption"`
		Scenario json.RawMessage `json:"scenario"`
	}
	_ = json.Unmarshal(body, &f)
	var name string
	if f.Caption != "" {
		return f.Caption
	}
	if json.Unmarshal(f.Scenario, &name) == nil && name != "" {
		return name
	}
	return fmt.Sprintf("#%d", nth)
}
