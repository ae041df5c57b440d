package play

import (
	"fmt"
	"sync"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/play/pages"
)

// The presets (lessons.Presets) as the playground links them; a room's menu
// lists the same ones, so the two offer the same scenarios.

// presetLinks are the presets with the playground link that opens each
// (its whole scenario in the address, as a shared link carries it),
// encoded once.
var presetLinks = sync.OnceValues(func() ([]pages.Preset, error) {
	out := make([]pages.Preset, len(lessons.Presets))
	for i, p := range lessons.Presets {
		sc, err := lessons.PresetScenario(p.Name)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		out[i] = pages.Preset{Name: p.Name, Label: p.Label, URL: scenario.EncodeURL(sc)}
	}
	return out, nil
})
