package pages

import (
	"strings"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/onredis"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/templates"
)

// The playground page's view model, and the words and numbers it writes.

// PlayPage is what the playground page needs besides the layout's Page.
type PlayPage struct {
	Page templates.Page
	// Narrow draws the lanes lane.PhoneWidth wide: the stream of a page on
	// a phone asks for it (streamOnLoad).
	Narrow bool
	View   play.View
	Base   string // "/play/<id>": the session's action URLs
	Share  string // the shared link of the scenario
	JSON   string // the scenario, indented: what "copy scenario" copies
	Errors scenario.Errors
	// LoadText is what was pasted into the load form, shown again next to
	// its error.
	LoadText string
	// Presets are the scenarios the page offers to start from, each with
	// its link.
	Presets []Preset
	// Problem, when set, is why the page is not what the visitor asked
	// for (a shared link or a loaded scenario it could not open): shown
	// first on the page, so the playground below is not taken for theirs.
	Problem *PlayProblem
	// Presenting is the live room this browser presents, when it does:
	// the page leads back to it.
	Presenting *PlayRoomLink
	// Redis is the scenario as Redis decided it, lane by lane, drawn under
	// each lane (serve -redis); nil without Redis.
	Redis *onredis.Replayed
	// ServersOpen is set by ?servers=open: the page is sent with the
	// servers' fields open (ServersShown).
	ServersOpen bool
}

// PlayProblem says what went wrong with a shared link or a loaded scenario,
// and what the playground on the page is instead.
type PlayProblem struct {
	Heading string   // "The shared link could not be opened"
	Reasons []string // each problem, as the field errors word it
	Instead string   // what the playground below is
	// InLoadForm says the visitor's text waits in the load form, to be
	// corrected there.
	InLoadForm bool
}

// HeaderLines writes the explanation's headers as an HTTP response would.
func HeaderLines(e play.Explained) string { return explain.HeaderLines(e.Headers) }

// LatestSummary is the live region's text: every lane's latest decisions.
func LatestSummary(v play.View) string {
	if v.Clock.Playing {
		// A playing clock decides requests ten times a second; a polite
		// live region read each update out, a queue no listener could
		// follow. It speaks again when the clock stops.
		return PlayingSummary
	}
	parts := make([]string, 0, len(v.Lanes))
	for _, l := range v.Lanes {
		parts = append(parts, l.LatestText())
	}
	return strings.Join(parts, " ")
}

// PlayingSummary is what the live region says while the clock plays.
const PlayingSummary = "The clock is playing: the lanes' latest decisions are read out when it stops."

// MaxEmbeddedLink is the longest shared link the page embeds; a longer one
// is reached through the session's /link redirect, so the page and its
// updates stay small.
const MaxEmbeddedLink = 8 << 10

// MaxShownJSON is the longest scenario JSON the page shows in full; a longer
// one is offered as a download.
const MaxShownJSON = 16 << 10
