package play

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/play/pages"
)

// The presets (lessons.Presets) as the playground links them; a room's menu
// lists the same ones, so the two offer the same scenarios.

// presetLinks are the presets with the short link the page offers
// (/play/preset/NAME, so the page does not carry every preset's whole
// scenario), and presetTargets the shared link each redirects to (its
// whole scenario in the address), encoded once.
var presetLinks = sync.OnceValues(func() ([]pages.Preset, error) {
	out := make([]pages.Preset, len(lessons.Presets))
	for i, p := range lessons.Presets {
		if _, err := presetTarget(p.Name); err != nil {
			return nil, err
		}
		out[i] = pages.Preset{Name: p.Name, Label: p.Label, URL: "/play/preset/" + url.PathEscape(p.Name)}
	}
	return out, nil
})

// presetTarget is the shared link that opens the named preset.
func presetTarget(name string) (string, error) {
	sc, err := lessons.PresetScenario(name)
	if err != nil {
		return "", fmt.Errorf("web: %w", err)
	}
	return scenario.EncodeURL(sc), nil
}

// preset redirects a preset's short link to its shared link.
func (p *playground) preset(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	if !slices.ContainsFunc(lessons.Presets, func(ps lessons.Preset) bool { return ps.Name == name }) {
		http.Error(w, fmt.Sprintf("There is no preset named %q.", name), http.StatusNotFound)
		return
	}
	target, err := presetTarget(name)
	if err != nil {
		http.Error(w, "This preset cannot be opened.", http.StatusInternalServerError)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
