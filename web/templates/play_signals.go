package templates

import (
	"encoding/json"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// playSignals declares the page's signals with the session's values. Names
// are camelCase; the page binds them with kebab-case attributes
// (data-bind-use-sliding-log for useSlidingLog), because HTML lower-cases
// attribute names and Datastar turns kebab-case back into camelCase.
func playSignals(pp PlayPage) string {
	v := pp.View
	// Number fields' signals are text (web's numberField says why).
	sig := map[string]any{
		"limit":                  Itoa(v.Scenario.Limit),
		"windowSeconds":          Sec(v.Scenario.WindowMs),
		"useFixedWindow":         Has(v, policies.FixedWindow, ""),
		"useSlidingLog":          Has(v, policies.SlidingLog, ""),
		"useSlidingCounterFloor": Has(v, policies.SlidingCounter, policies.Floor),
		"useSlidingCounterExact": Has(v, policies.SlidingCounter, policies.Exact),
		"useSlidingBuckets":      Has(v, policies.SlidingBuckets, ""),
		"buckets":                Itoa(SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets)),
		"useTokenBucket":         Has(v, policies.TokenBucket, ""),
		"useGcra":                Has(v, policies.GCRA, ""),
		"burst":                  Itoa(SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0))),
		"bucketsShown":           SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"burstShown":             SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
		"cost":                   Itoa(v.Cost),
		"burstCount":             "3",
		"pattern":                string(play.Steady),
		"patternCount":           "10",
		"patternSeconds":         Sec(v.Scenario.WindowMs),
		"jumpSeconds":            Sec(v.Clock.Now),
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
// lanes are applied (the signals bucketsShown and burstShown), as JSON.
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
