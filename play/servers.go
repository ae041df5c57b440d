package play

import (
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/scenario"
)

// The settings form's fields for the servers each lane runs on: a lane's
// deployment (scenario.Deployment) as the form shows and sends it.

// ServersRule says in one sentence what the servers' fields do, as the
// page states it.
const ServersRule = "Each lane runs on one server unless you give it more: its nodes count on their own and tell each other what they admitted every sync interval (0: never), or ask one central store; route says which node a request reaches, and clock offsets skew each node's clock. A lane of one server without a central store has no sync, route or offsets to set."

// Routes are the routes the form offers, the default first.
var Routes = []cluster.Route{cluster.RoundRobin, cluster.Random, cluster.ByKey}

// ServerFields are the names of lane i's server fields, as the page's
// signals: "laneNodes0", "laneSync0", "laneRoute0", "laneCentral0",
// "laneSkew0".
type ServerFields struct {
	Nodes, Sync, Route, Central, Skew string
}

// ServerFieldsOf names lane i's fields.
func ServerFieldsOf(i int) ServerFields {
	n := strconv.Itoa(i)
	return ServerFields{Nodes: "laneNodes" + n, Sync: "laneSync" + n, Route: "laneRoute" + n, Central: "laneCentral" + n, Skew: "laneSkew" + n}
}

// ServerValues are a lane's server fields as the form shows them: the
// numbers as text, as every number field of the form is.
type ServerValues struct {
	Nodes, Sync, Route string
	Central            bool
	Skew               string // the offsets in ms, comma-separated; "" for none
}

// ServerValuesOf is how the form shows deployment d.
func ServerValuesOf(d scenario.Deployment) ServerValues {
	route := d.Route
	if route == "" {
		route = string(cluster.RoundRobin)
	}
	var skew []string
	for _, ms := range d.SkewMs.Ms() {
		skew = append(skew, strconv.FormatInt(ms, 10))
	}
	return ServerValues{Nodes: strconv.Itoa(max(d.Nodes, 1)), Sync: strconv.FormatInt(d.SyncMs, 10), Route: route,
		Central: d.Central, Skew: strings.Join(skew, ", ")}
}

// ServerObject is a deployment as the form sent it, before it is read by
// scenario.ParseDeployment: the policy object's fields, each left out
// where the form asks for nothing. keep is the lane's current deployment,
// whose seed stays while its route stays random (the form has no seed).
// A lane of one server without a central store takes no sync, route or
// offsets (they would change nothing, and a scenario refuses them), so
// those the form still holds for it are dropped.
func ServerObject(nodes, syncMs int64, route string, central bool, skew []int64, keep scenario.Deployment) map[string]any {
	obj := map[string]any{}
	if nodes != 1 { // left out, one server is the lane as it always was
		obj["nodes"] = nodes
	}
	if central {
		obj["central"] = true
	}
	if nodes == 1 && !central {
		return obj
	}
	if syncMs != 0 {
		obj["syncMs"] = syncMs
	}
	if route != "" && route != string(cluster.RoundRobin) {
		obj["route"] = route
	}
	if route == string(cluster.Random) && keep.Route == string(cluster.Random) && keep.Seed != 0 {
		obj["seed"] = keep.Seed
	}
	if len(skew) > 0 && slices.ContainsFunc(skew, func(ms int64) bool { return ms != 0 }) {
		obj["skewMs"] = skew
	}
	return obj
}
