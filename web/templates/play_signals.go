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
