package pages

import (
	"encoding/json"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/templates"
)

// playSignals declares the page's signals with the session's values. Names
// are camelCase; the page binds them with kebab-case attributes
// (data-bind-use-sliding-log for useSlidingLog), because HTML lower-cases
// attribute names and Datastar turns kebab-case back into camelCase.
func playSignals(pp PlayPage) string {
	v := pp.View
	// Number fields' signals are text (web's numberField says why).
	sig := map[string]any{
		"limit":          templates.Itoa(v.Scenario.Limit),
		"windowSeconds":  templates.Sec(v.Scenario.WindowMs),
		"cost":           templates.Itoa(v.Cost),
		"burstCount":     "3",
		"pattern":        string(play.Steady),
		"patternCount":   "10",
		"patternSeconds": templates.Sec(v.Scenario.WindowMs),
		"jumpSeconds":    templates.Sec(v.Clock.Now),
		"speed":          v.Clock.Speed.String(),
		"clientName":     "",
	}
	for _, k := range play.Kinds() {
		sig[k.Signal()] = Has(v, k)
	}
	for _, f := range play.Fields() {
		sig[f.Option.Name] = templates.Itoa(f.Shown(v.Scenario))
		sig[f.Option.Name+"Shown"] = f.Shown(v.Scenario)
	}
	if ServersShown(pp) {
		// Without their fields the page declares none: an apply then
		// leaves the lanes' servers as they are.
		for k, val := range serverSignals(v.Scenario) {
			sig[k] = val
		}
	}
	data, err := json.Marshal(sig)
	if err != nil {
		panic("templates: " + err.Error()) // numbers, strings and booleans only
	}
	return string(data)
}

// ShownSignals are the k and burst the settings form stands for once sc's
// lanes are applied (the signals bucketsShown and burstShown), and each
// lane's servers when the page holds their fields (withServers), as JSON.
func ShownSignals(sc scenario.Scenario, withServers bool) []byte {
	shown := map[string]any{}
	if withServers {
		shown = serverSignals(sc)
	}
	for _, f := range play.Fields() {
		shown[f.Option.Name+"Shown"] = f.Shown(sc)
	}
	data, err := json.Marshal(shown)
	if err != nil {
		panic("templates: " + err.Error()) // numbers, strings and booleans only
	}
	return data
}
