package lessons

import (
	"fmt"
	"slices"

	"github.com/windowlab/playground/scenario"
)

// Preset is one of the library's scenario files offered as a starting
// point: in the playground's list and in a workshop room's menu.
type Preset struct {
	Name  string // its file in scenarios/, without ".json"
	Label string // how the list names it
}

// Presets are the presets, in the order the lists offer them.
var Presets = []Preset{
	{Name: "car-park", Label: "The car park"},
	{Name: "boundary-burst", Label: "A burst at the boundary"},
	{Name: "try-it-front", Label: "Front-loaded window"},
	{Name: "end-loaded-attack", Label: "End-loaded attack"},
	{Name: "stacking", Label: "Stacking"},
	{Name: "quiet-then-burst", Label: "Quiet, then a burst"},
	{Name: "several-servers", Label: "Several servers"},
}

// PresetScenario reads a preset's scenario from the files embedded in
// this package, for a page that holds no Library (the playground); a
// Library's Scenario gives the same.
func PresetScenario(name string) (scenario.Scenario, error) {
	if !slices.ContainsFunc(Presets, func(p Preset) bool { return p.Name == name }) {
		return scenario.Scenario{}, fmt.Errorf("lessons: there is no preset %q", name)
	}
	data, err := content.ReadFile("scenarios/" + name + ".json")
	if err != nil {
		return scenario.Scenario{}, fmt.Errorf("lessons: preset %q: %w", name, err)
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		return scenario.Scenario{}, fmt.Errorf("lessons: preset %q: %w", name, err)
	}
	return sc, nil
}
