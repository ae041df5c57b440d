package lane

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// burstView is n requests at 0 s and one at 20 s, in a fixed-window lane
// and a lane of spec (on one server or several), every request marked as
// one the lanes decided differently, request sel selected (-1: none).
func burstView(t *testing.T, spec string, n, sel int) play.View {
	t.Helper()
	sc, err := scenario.Parse([]byte(`{"limit": 5, "windowMs": 30000, "policies": ["fixed-window", ` + spec + `],
		"requests": [{"at": 0, "count": ` + strconv.Itoa(n) + `}, {"at": 20000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sess := sessionOf(t, sc)
	if sel >= 0 {
		if err := sess.Select(sel); err != nil {
			t.Fatal(err)
		}
	}
	return sess.View()
}

// TestMarksKeepClearOfTheDisagreeRow: at any count of requests at one
// instant (a column that fits, one taller than the plot, a dense lane),
// on one server or several, at the default size, a projector's and a
// phone's, every mark's ink (shape and outline, markInk) stays inkGap
// under the ▼ row's, and the selected mark's ring too; and where the
// column has room, the ring keeps ringGap from every other mark.
func TestMarksKeepClearOfTheDisagreeRow(t *testing.T) {
	for _, spec := range []string{`"sliding-log"`, `{"name": "sliding-log", "nodes": 3, "syncMs": 500}`} {
		for _, size := range []Options{{}, {Width: 847, Height: 110}, {Width: 360}} {
			for _, n := range []int{1, 3, 5, 6, 8, 12, 20, 40, 70} {
				for _, sel := range []int{-1, 0, n / 2, n - 1} {
					name := fmt.Sprintf("%s, %d×%d, %d at 0 s, selected %d", spec, size.Width, size.Height, n, sel)
					v := burstView(t, spec, n, sel)
					for _, l := range v.Lanes {
						for i := range l.Marks {
							l.Marks[i].Disagree = true
						}
						p := newPlot(FromView(v, l), size)
						row := p.top + disagreeRow + inkGap
						var pos []MarkPos
						if p.Dense() {
							// A dense lane's marks are drawn as paths from
							// stackY; their places are checked alike.
							tallest := p.tallestStacks()
							for _, m := range p.Lane.Marks {
								pos = append(pos, MarkPos{Mark: m, X: num(p.X(m.At)), Y: num(p.stackY(m, tallest)), Count: 1})
							}
						} else {
							pos = p.Marks()
						}
						roomy := !p.Deployment.Several() && !p.Dense() && float64(n) < (p.markFloor()-p.ringCeil())/markGap-1
						for _, m := range pos {
							if m.Count == 0 {
								continue // drawn by its stack's mark
							}
							y, _ := strconv.ParseFloat(m.Y, 64)
							reach := float64(markInk)
							if m.Selected && !p.Deployment.Several() && !p.Dense() {
								reach = ringInk
							}
							if y-reach < row-0.01 {
								t.Errorf("%s, %s: request %d's ink reaches %.1f, into the ▼ row (its ink and air end at %.1f)", name, l.Label, m.Index, y-reach, row)
							}
							if !m.Selected || !roomy {
								continue
							}
							for _, o := range pos {
								oy, _ := strconv.ParseFloat(o.Y, 64)
								ox, _ := strconv.ParseFloat(o.X, 64)
								mx, _ := strconv.ParseFloat(m.X, 64)
								if o.Index != m.Index && o.Count > 0 && math.Abs(ox-mx) < ringGap && math.Abs(oy-y) < ringGap-0.01 {
									t.Errorf("%s, %s: request %d is %.1f from the selected one's ring centre, want %.1f", name, l.Label, o.Index, math.Abs(oy-y), ringGap)
								}
							}
						}
					}
				}
			}
		}
	}
}
