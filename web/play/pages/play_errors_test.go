package pages

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// TestNumberFieldsErrorsBesideTheSettings: every number field the settings
// form shows (one per option, from the registry) has its errors in the
// settings slot, named as the form labels it rather than by its JSON name.
func TestNumberFieldsErrorsBesideTheSettings(t *testing.T) {
	fields := play.Fields()
	if len(fields) == 0 {
		t.Fatal("play.Fields() is empty; want the registry's number options")
	}
	for _, f := range fields {
		name := f.Option.Name
		if got := ErrorSlot(name); got != "settings" {
			t.Errorf("ErrorSlot(%q) = %q, want settings", name, got)
		}
		msg := LabelledMessage(scenario.Errors{{Field: name, Reason: "too big"}})
		if !strings.HasPrefix(msg, f.Option.Label) && !strings.Contains(msg, " "+f.Option.Label+":") {
			t.Errorf("%s: message %q does not name the field as the form labels it (%q)", name, msg, f.Option.Label)
		}
	}
	// k serves sliding-buckets and exp-histogram, so it is a box of its
	// own, labelled k; a refusal's reason names the policy.
	if got := LabelledMessage(scenario.Errors{{Field: "buckets", Reason: "7 is odd"}}); got != "k: 7 is odd" {
		t.Errorf("buckets: %q, want the shared field's label", got)
	}
	// A lane's option refused by its policy is labelled as the form's field.
	if got := LabelledMessage(scenario.Errors{{Field: "policies[2].delay", Reason: "5 is too many"}}); got != "leaky-bucket Delay: 5 is too many" {
		t.Errorf("policies[2].delay: %q, want the delay field's label", got)
	}
}
