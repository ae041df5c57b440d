package templates

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// PlayPage is what the playground page needs besides the layout's Page.
type PlayPage struct {
	Page   Page
	View   play.View
	Base   string // "/play/<id>": the session's action URLs
	Share  string // the shared link of the scenario
	JSON   string // the scenario, indented: what "copy scenario" copies
	Errors scenario.Errors
	// LoadText is what was pasted into the load form, shown again next to
	// its error.
	LoadText string
}

// ClockText shows the clock.
func ClockText(v play.View) string { return scenario.FormatMs(v.Clock.Now) }

// Sec shows ms as seconds for a number field.
func Sec(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

// Itoa formats an integer.
func Itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// CountOf writes n and the noun, plural unless n is 1: "1 request", "0 requests".
func CountOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Itoa(n) + " " + noun + "s"
}

// Has reports whether the scenario runs a lane like spec.
func Has(v play.View, name string, arithmetic policies.Arithmetic) bool {
	for _, s := range v.Scenario.Specs() {
		if s.Name == name && (arithmetic == "" || s.Params(v.Scenario).Arithmetic == arithmetic) {
			return true
		}
	}
	return false
}

// SpecOption returns an option of the scenario's first spec with that name
// (buckets or burst), or def.
func SpecOption(v play.View, name string, def int64) int64 {
	for _, s := range v.Scenario.Specs() {
		if s.Name == name {
			switch name {
			case policies.SlidingBuckets:
				return s.Params(v.Scenario).Buckets
			default:
				if s.Burst != 0 {
					return s.Burst
				}
			}
		}
	}
	return def
}

// FieldError returns the message for one error slot of the page.
func (pp PlayPage) FieldError(slot string) string { return SlotMessage(pp.Errors, slot) }

// SlotMessage joins the errors that belong next to one field of the page.
func SlotMessage(errs scenario.Errors, slot string) string {
	var msgs []string
	for _, e := range errs {
		if ErrorSlot(e.Field) == slot {
			if label, ok := fieldLabels[e.Field]; ok {
				e.Field = label
			}
			msgs = append(msgs, e.Error())
		}
	}
	return strings.Join(msgs, "; ")
}

// fieldLabels name a field next to its problem as the page labels it: the
// learner typed into "Window (s)", not "windowMs". The X-Problem header and
// other callers keep the field's JSON name.
var fieldLabels = map[string]string{
	"limit":        "Limit",
	"windowMs":     "Window (s)",
	"buckets":      "sliding-buckets k",
	"burst":        "Burst",
	"cost":         "Cost",
	"count":        "Burst of",
	"patternCount": "Requests",
	"span":         "Over (s)",
	"at":           "Jump to (s)",
	"step":         "Step",
	"speed":        "Speed",
	"client":       "Client",
	"selected":     "Selection",
}

// ErrorSlots are the places on the page where field errors appear.
var ErrorSlots = []string{"settings", "cost", "count", "pattern", "clock", "client", "selected", "load"}

// ErrorSlot says where an error about a field is shown.
func ErrorSlot(field string) string {
	switch {
	case field == "limit" || field == "windowMs" || strings.HasPrefix(field, "policies") || field == "buckets" || field == "burst":
		return "settings"
	case field == "cost":
		return "cost"
	case field == "count" || field == "requests":
		return "count"
	case field == "span" || field == "pattern" || field == "patternCount":
		return "pattern"
	case field == "at" || field == "step" || field == "speed":
		return "clock"
	case field == "client":
		return "client"
	case field == "selected":
		return "selected"
	}
	return "load"
}

// HeaderLines writes the explanation's headers as an HTTP response would.
func HeaderLines(e play.Explained) string {
	var b strings.Builder
	for i, h := range e.Headers {
		if i == 0 {
			b.WriteString("HTTP/1.1 " + h.Value)
			continue
		}
		b.WriteString("\n" + h.Name + ": " + h.Value)
	}
	return b.String()
}

// StateText describes a policy state in one line.
func StateText(policy string, s policies.State) string {
	est := scenario.FormatFraction(s.Estimate)
	switch policy {
	case policies.FixedWindow:
		return fmt.Sprintf("window from %s, count %d", scenario.FormatMs(s.WindowStart), s.Count)
	case policies.SlidingLog:
		ts := make([]string, len(s.Log))
		for i, t := range s.Log {
			ts[i] = scenario.FormatMs(t)
		}
		return fmt.Sprintf("%d in the log: [%s]", len(s.Log), strings.Join(ts, ", "))
	case policies.SlidingCounter:
		return fmt.Sprintf("window from %s, previous %d, current %d, estimate %s", scenario.FormatMs(s.WindowStart), s.Previous, s.Current, est)
	case policies.SlidingBuckets:
		cs := make([]string, len(s.Slots))
		for i, sl := range s.Slots {
			cs[i] = strconv.FormatInt(sl.Count, 10)
		}
		return fmt.Sprintf("slots [%s], estimate %s", strings.Join(cs, " "), est)
	case policies.TokenBucket:
		return fmt.Sprintf("tokens %s of %d", scenario.FormatFraction(s.Tokens), s.Capacity)
	case policies.GCRA:
		return fmt.Sprintf("TAT %s, in use %s", play.FormatInstant(s.TAT), est)
	}
	return "estimate " + est
}

// LatestSummary is the live region's text: every lane's latest decisions.
func LatestSummary(v play.View) string {
	parts := make([]string, 0, len(v.Lanes))
	for _, l := range v.Lanes {
		parts = append(parts, l.LatestText())
	}
	return strings.Join(parts, " ")
}

// playSignals declares the page's signals with the session's values. Names
// are camelCase; the page binds them with kebab-case attributes
// (data-bind-use-sliding-log for useSlidingLog), because HTML lower-cases
// attribute names and Datastar turns kebab-case back into camelCase.
func playSignals(pp PlayPage) string {
	v := pp.View
	sig := map[string]any{
		"limit":                  v.Scenario.Limit,
		"windowSeconds":          float64(v.Scenario.WindowMs) / 1000,
		"useFixedWindow":         Has(v, policies.FixedWindow, ""),
		"useSlidingLog":          Has(v, policies.SlidingLog, ""),
		"useSlidingCounterFloor": Has(v, policies.SlidingCounter, policies.Floor),
		"useSlidingCounterExact": Has(v, policies.SlidingCounter, policies.Exact),
		"useSlidingBuckets":      Has(v, policies.SlidingBuckets, ""),
		"buckets":                SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"useTokenBucket":         Has(v, policies.TokenBucket, ""),
		"useGcra":                Has(v, policies.GCRA, ""),
		"burst":                  SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
		"bucketsShown":           SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"burstShown":             SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
		"cost":                   v.Cost,
		"burstCount":             3,
		"pattern":                string(play.Steady),
		"patternCount":           10,
		"patternSeconds":         float64(v.Scenario.WindowMs) / 1000,
		"jumpSeconds":            float64(v.Clock.Now) / 1000,
		"speed":                  v.Clock.Speed.String(),
		"clientName":             "",
	}
	data, err := json.Marshal(sig)
	if err != nil {
		panic("templates: " + err.Error()) // numbers, strings and booleans only
	}
	return string(data)
}

// ShownSignals are the k and burst the settings form stands for once sc's
// lanes are applied (the signals bucketsshown and burstshown), as JSON.
func ShownSignals(sc scenario.Scenario) []byte {
	v := play.View{Scenario: sc}
	data, err := json.Marshal(map[string]int64{
		"bucketsShown": SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"burstShown":   SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
	})
	if err != nil {
		panic("templates: " + err.Error()) // numbers only
	}
	return data
}

// MaxEmbeddedLink is the longest shared link the page embeds; a longer one
// is reached through the session's /link redirect, so the page and its
// updates stay small.
const MaxEmbeddedLink = 8 << 10

// MaxShownJSON is the longest scenario JSON the page shows in full; a longer
// one is offered as a download.
const MaxShownJSON = 16 << 10
