package pages

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// The settings form's view of each lane's servers (play.ServerFields).

// serverSignals are the signals of the server fields of sc's lanes, with
// the values each lane runs with: declared with the fields (on the page
// or fetched), and sent again after the settings are applied, since the
// lanes may have changed.
func serverSignals(sc scenario.Scenario) map[string]any {
	out := map[string]any{}
	for i, spec := range sc.Specs() {
		f, v := play.ServerFieldsOf(i), play.ServerValuesOf(spec.Deployment)
		out[f.Nodes], out[f.Sync], out[f.Route], out[f.Central], out[f.Skew] = v.Nodes, v.Sync, v.Route, v.Central, v.Skew
	}
	return out
}

// ServerSignals are the signals of the server fields of sc's lanes, as
// JSON: sent with the fields when they are fetched.
func ServerSignals(sc scenario.Scenario) []byte {
	data, err := json.Marshal(serverSignals(sc))
	if err != nil {
		panic("templates: " + err.Error()) // numbers, strings and booleans only
	}
	return data
}

// ServersShown reports whether the page is sent with the servers' fields
// open: some lane runs on several servers or a central store, or the
// page was asked for them (?servers=open, where ServersURL leads).
func ServersShown(pp PlayPage) bool { return pp.ServersOpen || severalLanes(pp.View.Scenario) }

// ServersURL fetches the servers' fields of session id's lanes; without
// scripts it leads to a page with them open.
func ServersURL(id string) string { return "/play/" + id + "/servers" }

// severalLanes reports whether some lane of sc runs on several servers or
// a central store: the form's servers are then shown open.
func severalLanes(sc scenario.Scenario) bool {
	for _, spec := range sc.Specs() {
		if spec.Several() {
			return true
		}
	}
	return false
}

// laneField reads a lane's field path: "policies[1].syncMs" is lane 1's
// syncMs.
var laneField = regexp.MustCompile(`^policies\[(\d+)\]\.(nodes|syncMs|route|central|skewMs|seed)(\[\d+\])?$`)

// serverFieldLabels name a lane's server fields as the form labels them.
var serverFieldLabels = map[string]string{
	"nodes": "nodes", "syncMs": "sync every (ms)", "route": "route", "central": "central store",
	"skewMs": "clock offsets (ms)", "seed": "seed",
}

// serverLabel names a lane's server field next to its problem as the form
// labels it ("Lane 2 nodes"); false for any other field.
func serverLabel(field string) (string, bool) {
	m := laneField.FindStringSubmatch(field)
	if m == nil {
		return "", false
	}
	i, err := strconv.Atoi(m[1])
	if err != nil {
		return "", false
	}
	label := fmt.Sprintf("Lane %d %s", i+1, serverFieldLabels[m[2]])
	if m[3] != "" {
		label += " " + m[3]
	}
	return label, true
}

// oneServer is the expression, over a lane's signals, that holds while
// the lane runs on one server without a central store: play.ServersRule
// says its sync, route and offsets then have nothing to set, so the form
// disables them. The server's own rules do not depend on it, which keeps
// the form without scripts (where it stays enabled) as it was. The
// comparison is loose because the field's signal is its text ("1").
func oneServer(f play.ServerFields) string {
	return "$" + f.Nodes + " == 1 && !$" + f.Central
}

// routeLabel is how the form names a route.
func routeLabel(r string) string {
	switch r {
	case "random":
		return "random"
	case "key":
		return "by client (key)"
	}
	return "round-robin"
}
