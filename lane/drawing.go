package lane

import (
	"github.com/a-h/templ"
	"github.com/windowlab/playground/policies"
)

// stateDrawing draws what one policy holds, around the parts every lane
// draws (axis, windows, curve, marks). Each policy has a file of its own
// here (sliding_log.go, …) whose type implements it and registers itself,
// so a lane looks its policy up instead of switching on the name; a test
// checks that every policy in the policies registry has one.
type stateDrawing interface {
	// behind is drawn behind the axis and the marks (shading, bars).
	behind(p plot) templ.Component
	// front is drawn over the axis (ticks, lines).
	front(p plot) templ.Component
}

// drawings holds each policy's drawing, registered from the policies' own
// files.
var drawings = policies.NewByName[stateDrawing]("lane")

// register records the drawing of the named policy; each policy's file
// calls it once, from init.
func register(name string, d stateDrawing) { drawings.Register(name, d) }

// drawingOf is the named policy's drawing; a policy with none draws only
// what every lane draws.
func drawingOf(name string) stateDrawing { return drawings.Of(name, nothingHeld{}) }

// nothingHeld draws no state of its own: the policy's line (the curve)
// and, for a policy counting in aligned windows, its windows say it all.
type nothingHeld struct{}

func (nothingHeld) behind(plot) templ.Component { return templ.NopComponent }
func (nothingHeld) front(plot) templ.Component  { return templ.NopComponent }

// stepper is a drawing whose policy's count changes only by whole steps
// (at a request, at a window's boundary, when a logged entry leaves the
// look-back): its curve is drawn as steps, holding each value until the
// next sample. A policy that fills or drains continuously (a bucket, a
// weighted estimate) draws straight lines between its samples.
type stepper interface{ steps() bool }

// countsInSteps is a drawing that draws nothing of its own and whose
// curve steps (fixed-window's count).
type countsInSteps struct{ nothingHeld }

func (countsInSteps) steps() bool { return true }

// keyed is a drawing with its one-line key: what its marks on the lane
// stand for, in the lane's own glyphs (the full wording is explain.Legend,
// one click away).
type keyed interface{ key() string }

// keyOf is the short key of the lane's drawing, or "" for none.
func keyOf(d stateDrawing) string {
	if k, ok := d.(keyed); ok {
		return k.key()
	}
	return ""
}

// fixedWindowDrawing is fixed-window's: its windows (drawn for every
// policy counting in aligned windows) and its count in steps.
type fixedWindowDrawing struct{ countsInSteps }

func (fixedWindowDrawing) key() string {
	return "▮ windows, with their admitted · ─ count"
}

// tokenBucketDrawing draws the permits in use as its curve, and the
// bucket's level at the clock (bucketLevel).
type tokenBucketDrawing struct{ nothingHeld }

func (tokenBucketDrawing) behind(p plot) templ.Component { return bucketLevel(p) }

func (tokenBucketDrawing) key() string { return "─ permits in use, draining" }

// Part is one of the parts of a lane that change as its clock moves with
// nothing else changed (lane.templ's layers, its status line, its nodes'
// states): an element with an id of its own, which a frame may replace
// alone.
type Part struct {
	ID        string
	Component templ.Component
}

// Parts are the parts of the lane Figure(in, o) draws that change as its
// clock moves, each drawn as Figure draws it.
func Parts(in Input, o Options) []Part {
	p := newPlot(in, o)
	return []Part{
		{p.ID + "-behind", behindLayer(p)},
		{p.ID + "-front", frontLayer(p)},
		{p.ID + "-status", statusLine(p)},
		{p.ID + "-nodes", nodeStates(p)},
	}
}
