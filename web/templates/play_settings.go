package templates

import (
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
)

// The settings form's view of a scenario: which lanes it runs, and the k
// and burst it shows for them.

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
