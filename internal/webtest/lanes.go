package webtest

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// laneGeometryJS measures, in every lane the page shows, the boxes the
// browser drew: each drawn mark's shape, each label (the time axis's, the
// limit's, the windows' and the policy's own, and the counts beside
// stacked marks), the ▼ row of disagreements and the selection ring.
// A shape's box is measured twice: as its geometry (what the marks'
// spacing rule is about) and as the ink it lays down, its outline's half
// width added on every side (what "touches" is about: an outline that
// runs into a neighbour's is a touch the eye sees, though the shapes'
// geometries are apart).
const laneGeometryJS = `[...document.querySelectorAll('.lane-svg')].filter(svg => svg.getClientRects().length > 0).map(svg => {
  const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
  const scale = r.width / vb.width;
  const box = e => { const b = e.getBoundingClientRect(); return {x: b.left, y: b.top, w: b.width, h: b.height}; };
  const ink = e => { const s = getComputedStyle(e), b = box(e);
    const half = s.stroke === 'none' ? 0 : (parseFloat(s.strokeWidth) || 0) * scale / 2;
    return {x: b.x - half, y: b.y - half, w: b.w + 2 * half, h: b.h + 2 * half}; };
  const marks = [...svg.querySelectorAll('.mark:not(.stacked)')].filter(g => g.querySelector('circle, path'))
    .map(g => { const s = g.querySelector('circle, path'); return {id: g.id, ...box(s), ink: ink(s)}; });
  const labels = [...svg.querySelectorAll('.tick-label, .limit-label, .band-label, .prev-weight-label, .tat-label, .mark-count')]
    .map(e => ({text: e.textContent, own: e.closest('.mark') ? e.closest('.mark').id : '', ...box(e)}));
  const ring = svg.querySelector('.selected-ring'), first = svg.querySelector('.mark');
  const disagree = [...svg.querySelectorAll('.disagree')].map(e => ({id: 'disagree', ...box(e), ink: ink(e)}));
  return {lane: svg.closest('.lane') ? svg.closest('.lane').dataset.label : svg.id, marks, labels, disagree,
    ring: ring ? {id: 'ring', ...box(ring), ink: ink(ring)} : null,
    ringUnder: !!ring && !!first && !!(ring.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING),
    plotLeft: r.left + svg.dataset.x0 * scale, plotRight: r.left + svg.dataset.x1 * scale};
})`

// LaneBox is a drawn shape's box in CSS pixels: its geometry, and Ink,
// the same grown by half its outline's width.
type LaneBox struct {
	X, Y, W, H float64
	ID, Text   string
	// Own is, for a label drawn with a mark (its count), the mark's id.
	Own string
	Ink *LaneBox
}

// Lane is what LaneGeometry measures of one lane's drawing.
type Lane struct {
	Lane                    string
	Marks, Labels, Disagree []LaneBox
	// Ring is the selection ring, nil when nothing is selected.
	Ring *LaneBox
	// RingUnder says the ring comes before the marks, drawn under them.
	RingUnder           bool
	PlotLeft, PlotRight float64
}

// Overlap is the area two boxes share, 0 when they are apart.
func Overlap(a, b LaneBox) float64 {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// LaneGeometry measures every lane shown on the tab's page.
func LaneGeometry(t testing.TB, tab *browsertest.Tab) []Lane {
	t.Helper()
	raw := browsertest.Run(tab, chromedp.Evaluate[string](`JSON.stringify(`+laneGeometryJS+`)`))
	var out []Lane
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// LaneMarksApart is #27's rule of a lane one reads at a glance, checked on
// every lane the tab shows (where names the page and moment in messages):
//   - no two drawn marks overlap by more than a quarter of the smaller;
//   - no mark covers more than a tenth of a label (which leaves the
//     anti-aliased edge of a neighbour) other than its own count;
//   - the ▼ row of disagreements and the selection ring touch no mark:
//     their ink and a mark's do not meet (the ring's own mark aside);
//   - the ring, when drawn, is under every mark.
//
// It returns the lanes measured, for a caller's own checks.
func LaneMarksApart(t testing.TB, tab *browsertest.Tab, where string) []Lane {
	t.Helper()
	lanes := LaneGeometry(t, tab)
	for _, l := range lanes {
		for _, d := range l.Disagree {
			for _, m := range l.Marks {
				if o := Overlap(*d.Ink, *m.Ink); o > 0 {
					t.Errorf("%s, %s: the ▼ row (%.0f–%.0f px down) touches mark %s (%.0f–%.0f px down), ink shared %.1f px²", where, l.Lane, d.Ink.Y, d.Ink.Y+d.Ink.H, m.ID, m.Ink.Y, m.Ink.Y+m.Ink.H, o)
				}
			}
		}
		if r := l.Ring; r != nil {
			if !l.RingUnder {
				t.Errorf("%s, %s: the selection ring is drawn over the marks, want under every mark", where, l.Lane)
			}
			for _, m := range l.Marks {
				// Its own mark is the one it surrounds: their centres meet.
				own := abs(m.X+m.W/2-(r.X+r.W/2)) < 1 && abs(m.Y+m.H/2-(r.Y+r.H/2)) < 1
				if o := Overlap(*r.Ink, *m.Ink); o > 0 && !own {
					t.Errorf("%s, %s: the selection ring touches mark %s, ink shared %.1f px²", where, l.Lane, m.ID, o)
				}
			}
			for _, d := range l.Disagree {
				if o := Overlap(*r.Ink, *d.Ink); o > 0 {
					t.Errorf("%s, %s: the selection ring touches the ▼ row, ink shared %.1f px²", where, l.Lane, o)
				}
			}
		}
		for i, a := range l.Marks {
			for _, b := range l.Marks[i+1:] {
				if o := Overlap(a, b); o > 0.25*min(a.W*a.H, b.W*b.H) {
					t.Errorf("%s, %s: marks %s and %s overlap by %.0f px² (%.0f×%.0f and %.0f×%.0f)", where, l.Lane, a.ID, b.ID, o, a.W, a.H, b.W, b.H)
				}
			}
			for _, lb := range l.Labels {
				if lb.Own == a.ID || lb.W*lb.H == 0 {
					continue
				}
				if o := Overlap(a, lb); o > 0.1*lb.W*lb.H {
					t.Errorf("%s, %s: mark %s covers the label %q (%.0f px² of %.0f)", where, l.Lane, a.ID, lb.Text, o, lb.W*lb.H)
				}
			}
		}
	}
	return lanes
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
