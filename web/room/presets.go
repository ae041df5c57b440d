package room

import (
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/web/room/pages"
)

// presetsOf is the lessons' presets as the presenter's menu lists them:
// the playground offers the same list.
func presetsOf(ps []lessons.Preset) []pages.Preset {
	out := make([]pages.Preset, len(ps))
	for i, p := range ps {
		out[i] = pages.Preset{Name: p.Name, Label: p.Label}
	}
	return out
}
