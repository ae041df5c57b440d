package pages

import (
	"slices"
	"strings"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// Error routing: each field error of an action or a shared link is shown
// next to the fields it is about, in one of the page's error slots.

// FieldError returns the message for one error slot of the page.
func (pp PlayPage) FieldError(slot string) string { return SlotMessage(pp.Errors, slot) }

// SlotMessage joins the errors that belong next to one field of the page.
func SlotMessage(errs scenario.Errors, slot string) string {
	var mine scenario.Errors
	for _, e := range errs {
		if ErrorSlot(e.Field) == slot {
			mine = append(mine, e)
		}
	}
	return LabelledMessage(mine)
}

// LabelledMessage is errs as one message for a person, each field named as
// the page labels it and without the "invalid scenario" the API says: a
// room's controls show it where /play shows each slot's part.
func LabelledMessage(errs scenario.Errors) string {
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		if label, ok := fieldLabels[e.Field]; ok {
			e.Field = label
		} else if label, ok := numberLabel(e.Field); ok {
			e.Field = label
		} else if label, ok := serverLabel(e.Field); ok {
			e.Field = label
		}
		msgs = append(msgs, e.Error())
	}
	return strings.Join(msgs, "; ")
}

// fieldLabels name a field next to its problem as the page labels it: the
// learner typed into "Window (s)", not "windowMs". The X-Problem header and
// other callers keep the field's JSON name.
var fieldLabels = map[string]string{
	"limit":        "Limit",
	"windowMs":     "Window (s)",
	"cost":         "Cost",
	"count":        "Burst of",
	"patternCount": "Requests",
	"span":         "Over (s)",
	"at":           "Jump to (s)",
	"step":         "Step",
	"speed":        "Speed",
	"client":       "Client",
	"selected":     "Selection",
	// The room's Ask controls.
	"askAt": "At",
	"askN":  "N",
}

// numberLabel is how the settings form labels the number field named
// field (play.Fields): inside its one policy's box, "sliding-buckets k";
// as a box of its own, "Burst".
func numberLabel(field string) (string, bool) {
	// A lane's option refused by its policy comes as "policies[i].burst":
	// the form has one field per option, so it is labelled as that field.
	if _, opt, ok := strings.Cut(field, "]."); ok && strings.HasPrefix(field, "policies[") {
		field = opt
	}
	for _, f := range play.Fields() {
		switch {
		case f.Option.Name != field:
		case len(f.Policies) == 1:
			return f.Policies[0] + " " + f.Option.Label, true
		default:
			return f.Option.Label, true
		}
	}
	return "", false
}

// ErrorSlots are the places on the page where field errors appear.
var ErrorSlots = []string{"settings", "cost", "count", "pattern", "clock", "client", "selected", "load"}

// ErrorSlot says where an error about a field is shown.
func ErrorSlot(field string) string {
	switch {
	case field == "limit" || field == "windowMs" || strings.HasPrefix(field, "policies"):
		return "settings"
	case slices.ContainsFunc(play.Fields(), func(f play.Field) bool { return f.Option.Name == field }):
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
