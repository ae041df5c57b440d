package lessons

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/url"
	"regexp"
	"strings"

	"github.com/a-h/templ"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/windowlab/playground/scenario"
)

// Rendered is a lesson turned into HTML, with everything the page computed
// on the way, so tests can check it.
type Rendered struct {
	Lesson   *Lesson
	HTML     template.HTML
	Claims   []Claim
	Tables   []Table
	Problems []Problem
	// InputProblems says what was wrong with the visitor's inputs (the
	// page's query, such as ?k=7 where k must divide the window). The page
	// still renders, with the lesson's defaults in their place and each
	// problem shown beside its widget; a server answers it with a 400.
	InputProblems []string
	// Pictures are the lesson's ```picture blocks, in order.
	Pictures []SectionPicture
	// Predictions are the lesson's ```predict blocks, in order.
	Predictions []*Prediction
}

// Table is one computed table, as text, for tests and text alternatives.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// Problem is something in a lesson file that did not render as written: a
// claim whose computed value differs from the file, or a block that could
// not be computed. The page still renders (showing computed values); tests
// fail on any problem.
type Problem struct {
	Lesson string
	What   string
}

func (p Problem) String() string { return p.Lesson + ": " + p.What }

// renderState is one rendering of one lesson.
type renderState struct {
	lib       *Library
	lesson    *Lesson
	in        url.Values
	local     map[string]scenario.Scenario
	out       *Rendered
	md        goldmark.Markdown
	blockSeen map[string]int
	// openPredict is the prediction whose example is being rendered, until
	// its ```predict-end; "" outside one.
	openPredict string
	// wordsBeside is how tall the words after the section picture being
	// rendered are (sectionOpen.WordsPx), -1 outside one.
	wordsBeside int
}

// Render turns the lesson into HTML. in carries the visitor's inputs to the
// interactive blocks (a memory calculator's numbers, a chosen k, a traffic
// shape); nil renders every block with the defaults the file gives.
func (lib *Library) Render(l *Lesson, in url.Values) (*Rendered, error) {
	st, doc, src, err := lib.parse(l, in)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := st.md.Renderer().Render(&buf, src, doc); err != nil {
		return nil, fmt.Errorf("lessons: rendering %s: %w", l.File, err)
	}
	if st.openPredict != "" {
		st.problem("the example of prediction %q is never closed: end it with a ```predict-end fence", st.openPredict)
		buf.WriteString(revealClose)
	}
	html := captionPattern.ReplaceAllString(buf.String(), "<table class=\"prose-table\" tabindex=\"0\">\n<caption>$1</caption>")
	st.out.HTML = template.HTML(html) //nolint:gosec // goldmark escapes text; raw HTML in lessons is not enabled
	for _, p := range uncaptioned.FindAllString(html, -1) {
		st.problem("a Markdown table needs a caption: put a paragraph \"Table: what it shows\" right above it (%.40s…)", p)
	}
	return st.out, nil
}

// parse reads a lesson into its syntax tree, with the scenarios it defines
// ready for the blocks that name them.
func (lib *Library) parse(l *Lesson, in url.Values) (*renderState, ast.Node, []byte, error) {
	if in == nil {
		in = url.Values{}
	}
	st := &renderState{
		lib: lib, lesson: l, in: in,
		local:       map[string]scenario.Scenario{},
		out:         &Rendered{Lesson: l},
		blockSeen:   map[string]int{},
		wordsBeside: -1,
	}
	st.md = goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(
			parser.WithInlineParsers(util.Prioritized(claimParser{}, 50)),
			parser.WithAutoHeadingID(),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(&liveRenderer{st: st}, 50)),
		),
	)
	src := []byte(l.Body)
	doc := st.md.Parser().Parse(text.NewReader(src))
	// First pass: scenarios defined in the lesson, so that claims and tables
	// anywhere in the file can name them.
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		kind, arg := blockInfo(fb, src)
		if kind != "scenario" {
			return ast.WalkContinue, nil
		}
		if arg == "" {
			st.problem("a ```scenario block needs a name: ```scenario NAME")
			return ast.WalkContinue, nil
		}
		s, err := scenario.Parse(blockBody(fb, src))
		if err != nil {
			st.problem("scenario %q: %v", arg, err)
			return ast.WalkContinue, nil
		}
		st.local[arg] = s
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	groupSectionOpenings(doc, src)
	return st, doc, src, nil
}

// RenderAll renders every lesson with default inputs.
func (lib *Library) RenderAll() ([]*Rendered, error) {
	var out []*Rendered
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (st *renderState) problem(format string, args ...any) {
	st.out.Problems = append(st.out.Problems, Problem{Lesson: st.lesson.File, What: fmt.Sprintf(format, args...)})
}

// scenario finds a scenario by name: the lesson's own first, then the
// shared ones in scenarios/.
func (st *renderState) scenario(name string) (scenario.Scenario, error) {
	if s, ok := st.local[name]; ok {
		return s, nil
	}
	return st.lib.Scenario(name)
}

func blockInfo(fb *ast.FencedCodeBlock, src []byte) (kind, arg string) {
	if fb.Info == nil {
		return "", ""
	}
	info := strings.TrimSpace(string(fb.Info.Segment.Value(src)))
	kind, arg, _ = strings.Cut(info, " ")
	return kind, strings.TrimSpace(arg)
}

func blockBody(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return b.Bytes()
}

// A Markdown table gets its caption from a paragraph "Table: …" just above
// it; the caption text is already escaped by goldmark.
var (
	captionPattern = regexp.MustCompile(`<p>Table: ([^<]*)</p>\n<table>`)
	uncaptioned    = regexp.MustCompile(`<table>\n<thead>`)
)

// claimNode is an inline {{…}} claim.
type claimNode struct {
	ast.BaseInline
	src string
}

var kindClaim = ast.NewNodeKind("Claim")

func (n *claimNode) Kind() ast.NodeKind { return kindClaim }

func (n *claimNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"src": n.src}, nil)
}

// claimParser recognises {{ … }} on one line.
type claimParser struct{}

func (claimParser) Trigger() []byte { return []byte{'{'} }

func (claimParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if !bytes.HasPrefix(line, []byte("{{")) {
		return nil
	}
	end := bytes.Index(line[2:], []byte("}}"))
	if end < 0 {
		return nil
	}
	n := &claimNode{src: strings.TrimSpace(string(line[2 : 2+end]))}
	block.Advance(end + 4)
	return n
}

// liveRenderer renders claims and the live fenced blocks.
type liveRenderer struct{ st *renderState }

func (r *liveRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindClaim, r.renderClaim)
	reg.Register(ast.KindFencedCodeBlock, r.renderFenced)
	reg.Register(kindSectionOpen, r.renderSectionOpen)
	reg.Register(kindSectionWords, r.renderSectionWords)
}

func (r *liveRenderer) renderClaim(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	c := r.st.evalClaim(node.(*claimNode).src)
	r.st.out.Claims = append(r.st.out.Claims, c)
	var span templ.Component
	switch {
	case c.Err != nil:
		r.st.problem("claim {{%s}}: %v", c.Source, c.Err)
		span = claimSpan("claim claim-broken", "(could not compute: "+c.Err.Error()+")", c.Source)
	case c.Computed != c.Expected:
		r.st.problem("claim {{%s}}: the lesson says %s but the policies compute %s", c.Source, c.Expected, c.Computed)
		span = claimSpan("claim claim-mismatch", c.Computed, "The lesson file says "+c.Expected+"; this value is computed")
	default:
		span = claimSpan("claim", c.Computed, "Computed from the policies: "+c.Source)
	}
	return ast.WalkContinue, span.Render(context.Background(), w)
}

func (r *liveRenderer) renderFenced(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	fb := node.(*ast.FencedCodeBlock)
	kind, arg := blockInfo(fb, src)
	body := blockBody(fb, src)
	html, err := r.st.block(kind, arg, body)
	if err != nil {
		r.st.problem("```%s block: %v", kind, err)
		if html, err = renderHTML(brokenBlock(err.Error())); err != nil {
			return ast.WalkStop, err
		}
	}
	_, werr := w.WriteString(string(html))
	return ast.WalkSkipChildren, werr
}
