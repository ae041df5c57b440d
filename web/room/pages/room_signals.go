package pages

import (
	"encoding/json"
	"maps"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web/templates"
)

// AskCost and AskN are the cost and the count of requests a question is
// first asked with, on every page that asks (the projector sets them;
// the remote asks with them and says so).
const (
	AskCost = 1
	AskN    = 5
)

// askSignals declares the signals the presenter's ask reads (roomSignals
// in web/room) with their first values, then extra's, as playSignals does
// for the playground: the projector and the remote declare the same ask.
// Number fields' signals are text, as the inputs bound to them hold.
func askSignals(extra map[string]any) string {
	sig := map[string]any{
		"cost":       templates.Itoa(AskCost),
		"askKind":    string(room.KindAdmit),
		"askAt":      "",
		"askN":       templates.Itoa(AskN),
		"askSeconds": "0",
		"askOnTime":  true,
		"askWhenAll": false,
	}
	maps.Copy(sig, extra)
	data, err := json.Marshal(sig)
	if err != nil {
		panic("pages: " + err.Error()) // strings and booleans only
	}
	return string(data)
}

// presentSignals are the projector's: the ask's, and the controls only it
// has (a burst, a jump, a preset, a new step's title).
func presentSignals() string {
	return askSignals(map[string]any{"burstCount": "5", "jumpSeconds": "0", "preset": "car-park", "stepTitle": ""})
}
