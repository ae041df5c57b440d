package web

import (
	"fmt"
	"sync"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/templates"
)

// The presets (lessons.Presets) as the playground links them and a room's
// menu lists them: one list, so the two offer the same scenarios.

// presetsOf is the presets as the templates name them, without links.
func presetsOf(ps []lessons.Preset) []templates.Preset {
	out := make([]templates.Preset, len(ps))
	for i, p := range ps {
		out[i] = templates.Preset{Name: p.Name, Label: p.Label}
	}
	return out
}

// presetLinks are the presets with the playground link that opens each
// (its whole scenario in the address, as a shared link carries it),
// encoded once.
var presetLinks = sync.OnceValues(func() ([]templates.Preset, error) {
	out := presetsOf(lessons.Presets)
	for i := range out {
		sc, err := lessons.PresetScenario(out[i].Name)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		out[i].URL = scenario.EncodeURL(sc)
	}
	return out, nil
})
