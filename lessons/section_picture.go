package lessons

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	weblane "github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/scenario"
)

// A section's picture: a ```picture block, written right under a section's
// heading, draws a scenario's lanes decided, by the same lane renderer as
// the playground and a ```lanes block, so that a section of prose opens
// with something to look at. It has no step controls: the section's words
// are about the picture as a whole. Its text alternative is each lane's own
// (title and description) and the summary under it.
//
// The picture and the words after it (paragraphs, lists, plain code, notes,
// up to the next block of another kind) are one group (sectionOpen), laid
// out by lessons.css: above the words on a phone; on a laptop beside them,
// held in view while they are read, when the words are long enough to
// stand beside it (besideWords), else above them with its lanes side by
// side (one lane beside its caption), so that neither leaves a column of
// blank space beside the other.
//
// The reader points at it: hovering an instant of any lane, or moving along
// the instants with the arrow keys once the picture has focus, marks that
// instant in every lane and says in words how each policy decided the
// requests there (the server's sentences, one an instant, Instants;
// lessons-lanes.js shows them).
//
// Like any picture before a prediction, it must not draw a decision the
// learner is about to predict: a lesson's section pictures use traffic its
// predictions do not ask about (TestEverySectionOpensWithItsPicture).
type pictureBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	Policies []string    `json:"policies"`
}

// sectionPictureView is one ```picture block, for its templ component.
type sectionPictureView struct {
	ID      string
	Caption string
	Summary string
	Beside  bool // drawn beside its words on a laptop (besideWords)
	Inputs  []weblane.Input
	Options weblane.Options
	// Instants are the scenario's instants with a request, in time order,
	// each with what every lane decided there, for the reader pointing.
	Instants []pictureInstant
}

// pictureInstant is one instant of a picture's traffic: the requests there
// (indices First to Last of the expanded requests, as the lanes' marks
// carry them) and what each lane decided of them, in words.
type pictureInstant struct {
	At          int64
	First, Last int
	Text        string
}

// sectionPictureWidth is the width, in viewBox units, a section picture's
// lanes are drawn at: about the width of the column the text's measure
// leaves at 1280 px (some 26rem), so that beside the words they are drawn
// at their text's size without scrolling sideways, and on a phone scaled
// by no less than three quarters (lessons.css sets their text larger
// there). Above the words on a laptop they are drawn somewhat larger.
const sectionPictureWidth = 400

func (st *renderState) sectionPicture(body []byte) (template.HTML, error) {
	var b pictureBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	if b.Caption == "" {
		return "", fmt.Errorf("a picture needs a caption")
	}
	s, res, err := st.run(b.Scenario, b.Policies)
	if err != nil {
		return "", err
	}
	if n := len(res.Results[0].Decisions); n > MaxLaneSteps {
		return "", fmt.Errorf("the scenario has %d requests; a picture draws at most %d", n, MaxLaneSteps)
	}
	id := fmt.Sprintf("picture-%d", st.blockSeen["picture"])
	v := sectionPictureView{ID: id, Caption: b.Caption, Summary: lanesSummary(res), Instants: pictureInstants(res)}
	if v.Options, v.Inputs, err = lessonLanes(id, s, s); err != nil {
		return "", err
	}
	v.Beside = st.wordsBeside < 0 || besideWords(len(v.Inputs), st.wordsBeside)
	v.Options.Width = sectionPictureWidth
	st.out.Pictures = append(st.out.Pictures, SectionPicture{Caption: b.Caption, Scenario: b.Scenario.Name, Policies: b.Policies, Traffic: s})
	return renderHTML(sectionPicture(v))
}

// SectionPicture is what a rendered ```picture block drew, for tests.
type SectionPicture struct {
	Caption  string
	Scenario string // its name; "" for a scenario written in the block
	Policies []string
	Traffic  scenario.Scenario // the scenario as drawn, named or not
}

// pictureInstants groups a scenario's decisions by instant and says, for
// each, what every lane decided there: "At 40 s, 3 requests:
// fixed-window admits 2, refuses 1; sliding-log refuses all 3."
func pictureInstants(res scenario.Result) []pictureInstant {
	if len(res.Results) == 0 {
		return nil
	}
	var out []pictureInstant
	ds := res.Results[0].Decisions
	for i := 0; i < len(ds); {
		j := i
		for j+1 < len(ds) && ds[j+1].At == ds[i].At {
			j++
		}
		n := j - i + 1
		head := fmt.Sprintf("At %s, the request", scenario.FormatMs(ds[i].At))
		if n > 1 {
			head = fmt.Sprintf("At %s, %d requests", scenario.FormatMs(ds[i].At), n)
		}
		var parts []string
		for _, p := range res.Results {
			admitted, refused, probes := 0, 0, 0
			for _, d := range p.Decisions[i : j+1] {
				switch {
				case d.Probe:
					probes++
				case d.Allowed():
					admitted++
				default:
					refused++
				}
			}
			var said []string
			if admitted > 0 {
				said = append(said, countVerdict(admitted, n, true))
			}
			if refused > 0 {
				said = append(said, countVerdict(refused, n, false))
			}
			if probes > 0 {
				said = append(said, fmt.Sprintf("asks %d without deciding", probes))
			}
			parts = append(parts, p.Label+" "+strings.Join(said, ", "))
		}
		out = append(out, pictureInstant{At: ds[i].At, First: i, Last: j, Text: head + ": " + strings.Join(parts, "; ") + "."})
		i = j + 1
	}
	return out
}

// countVerdict says k of n requests' verdict: "admits it" for the one
// request of an instant, "admits 2" or "admits all 3" for several.
func countVerdict(k, n int, allowed bool) string {
	verb := "admits"
	if !allowed {
		verb = "refuses"
	}
	switch {
	case n == 1:
		return verb + " it"
	case k == n:
		return fmt.Sprintf("%s all %d", verb, k)
	}
	return fmt.Sprintf("%s %d", verb, k)
}

// besideWords says whether a picture of lanes lanes stands beside words
// wordsPx tall on a laptop (wordsHeight): the words are at least 60 % as
// tall as the picture in the column beside them (its caption and words,
// some 120 px, and some 270 px a lane, measured at 1280 px). Otherwise it comes above them
// (lessons.css sets its lanes side by side, or one lane beside its
// caption), rather than leave blank space under short words.
func besideWords(lanes, wordsPx int) bool {
	picturePx := 120 + 270*lanes
	return wordsPx*10 >= picturePx*6
}

// sectionOpen is a section's picture and the words after it, grouped so
// that lessons.css lays them out beside or above one another.
type sectionOpen struct {
	ast.BaseBlock
	// WordsPx is about how tall the words are at the text's measure, for
	// besideWords (wordsHeight).
	WordsPx int
}

// sectionWords is the words of a sectionOpen.
type sectionWords struct{ ast.BaseBlock }

var (
	kindSectionOpen  = ast.NewNodeKind("SectionOpen")
	kindSectionWords = ast.NewNodeKind("SectionWords")
)

func (n *sectionOpen) Kind() ast.NodeKind  { return kindSectionOpen }
func (n *sectionWords) Kind() ast.NodeKind { return kindSectionWords }

func (n *sectionOpen) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"WordsPx": strconv.Itoa(n.WordsPx)}, nil)
}
func (n *sectionWords) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// groupSectionOpenings puts each top-level ```picture block and the words
// that follow it into a sectionOpen. Words are paragraphs (but not a
// table's "Table: …" caption), lists, quotes, notes and code that is not a
// live block; anything else, a heading or a block the lesson computes,
// ends them. Moving nodes keeps the document's order, so blocks are still
// numbered as they come (lanes-1, picture-2, …).
func groupSectionOpenings(doc ast.Node, src []byte) {
	for n := doc.FirstChild(); n != nil; {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !ok {
			n = n.NextSibling()
			continue
		}
		if kind, _ := blockInfo(fb, src); kind != "picture" {
			n = n.NextSibling()
			continue
		}
		open, words := &sectionOpen{}, &sectionWords{}
		doc.ReplaceChild(doc, fb, open)
		open.AppendChild(open, fb)
		open.AppendChild(open, words)
		for w := open.NextSibling(); w != nil && isWords(w, src); w = open.NextSibling() {
			open.WordsPx += wordsHeight(w, src)
			doc.RemoveChild(doc, w)
			words.AppendChild(words, w)
		}
		if !words.HasChildren() {
			open.RemoveChild(open, words)
		}
		n = open.NextSibling()
	}
}

func isWords(n ast.Node, src []byte) bool {
	switch n := n.(type) {
	case *ast.Paragraph:
		return !strings.HasPrefix(string(wordsText(n, src)), "Table:")
	case *ast.List, *ast.Blockquote, *ast.CodeBlock:
		return true
	case *ast.FencedCodeBlock:
		kind, _ := blockInfo(n, src)
		return kind == "note" || !liveKinds[kind]
	}
	return false
}

// wordsHeight is about how tall a block of words is, in px, at the text's
// measure on a laptop: some 75 characters a line of 25 px, a code block a
// line each, and a paragraph's margin of 16 px.
func wordsHeight(n ast.Node, src []byte) int {
	const line, perLine, margin = 25, 75, 16
	switch n := n.(type) {
	case *ast.List:
		h := margin
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			h += (len(wordsText(it, src))/(perLine-5) + 1) * line
		}
		return h
	case *ast.FencedCodeBlock:
		if kind, _ := blockInfo(n, src); kind == "note" {
			return (len(blockBody(n, src))/(perLine-10)+1)*line + 2*margin
		}
		return n.Lines().Len()*line + margin
	case *ast.CodeBlock:
		return n.Lines().Len()*line + margin
	}
	return (len(wordsText(n, src))/perLine+1)*line + margin
}

// wordsText is a node's text as written (its lines), for counting.
func wordsText(n ast.Node, src []byte) []byte {
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return blockBody(n, src)
	}
	var b []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b = append(b, wordsText(c, src)...)
	}
	if t, ok := n.(*ast.Text); ok {
		b = append(b, t.Segment.Value(src)...)
	}
	return b
}

func (r *liveRenderer) renderSectionOpen(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		r.st.wordsBeside = -1
		_, err := w.WriteString("</div>\n")
		return ast.WalkContinue, err
	}
	// The picture, rendered next, decides beside or above (its lanes are
	// known once its block is read); lessons.css reads it from the picture.
	r.st.wordsBeside = node.(*sectionOpen).WordsPx
	_, err := w.WriteString(`<div class="section-open" data-testid="section-open">` + "\n")
	return ast.WalkContinue, err
}

func (r *liveRenderer) renderSectionWords(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		_, err := w.WriteString("</div>\n")
		return ast.WalkContinue, err
	}
	_, err := w.WriteString(`<div class="section-words">` + "\n")
	return ast.WalkContinue, err
}

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }
