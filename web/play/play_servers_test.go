package play

import (
	"encoding/json"
	"errors"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// serversScenario: a fixed-window and a sliding-log, limit 5 per second.
func serversScenario() scenario.Scenario {
	return scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{
		{Name: policies.FixedWindow}, {Name: policies.SlidingLog},
	}}
}

// parseReason is what scenario.Parse says of one field of a scenario
// file: the settings form must say the same of it.
func parseReason(t *testing.T, doc, field string) string {
	t.Helper()
	_, err := scenario.Parse([]byte(doc))
	var errs scenario.Errors
	if !errors.As(err, &errs) || errs.Field(field) == "" {
		t.Fatalf("scenario.Parse(%s) = %v, want an error naming %s", doc, err, field)
	}
	return errs.Field(field)
}

// The settings form sets each lane's servers through the settings action:
// nodes, sync, central and offsets land in the lane's deployment (and its
// label), a bad value is refused with a 400 naming the lane's field as a
// scenario file names it, with the same reason, and changes nothing.
func TestPlaySettingsSetServers(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sig, sess, doc := openPlayLink(t, url, store, scenario.EncodeURL(serversScenario()))
	if got := doc.Find(`[data-testid="lane-servers"]`).Length(); got != 2 {
		t.Fatalf("%d lanes' server fields on the page, want 2", got)
	}
	for _, k := range []string{"laneNodes0", "laneSync0", "laneRoute0", "laneCentral0", "laneSkew0", "laneNodes1"} {
		if _, ok := sig[k]; !ok {
			t.Errorf("the page declares no signal %s", k)
		}
	}
	runSettingsSteps(t, url+"/play/"+sess.ID(), sess, sig, []settingsStep{
		{what: "apply as shown", status: 200, limit: 5, lanes: []string{"fixed-window", "sliding-log"}},
		{what: "3 nodes syncing every 500 ms", change: map[string]any{"laneNodes0": "3", "laneSync0": "500"}, status: 200, limit: 5,
			lanes: []string{"fixed-window on 3 servers, sync 500 ms", "sliding-log"}},
		{what: "0 nodes", change: map[string]any{"laneNodes0": "0"}, status: 400, field: "policies[0].nodes"},
		{what: "nodes not a number", change: map[string]any{"laneNodes0": "three"}, status: 400, field: "policies[0].nodes"},
		{what: "17 nodes on the second lane", change: map[string]any{"laneNodes0": "3", "laneNodes1": "17"}, status: 400, field: "policies[1].nodes"},
		{what: "a negative sync", change: map[string]any{"laneNodes1": "1", "laneSync0": "-5"}, status: 400, field: "policies[0].syncMs"},
		{what: "two offsets for three nodes", change: map[string]any{"laneSync0": "500", "laneSkew0": "0, 300"}, status: 400, field: "policies[0].skewMs"},
		{what: "an offset that is not a number", change: map[string]any{"laneSkew0": "0, soon, 0"}, status: 400, field: "policies[0].skewMs"},
		{what: "three offsets", change: map[string]any{"laneSkew0": "0, 300, -200"}, status: 200, limit: 5,
			lanes: []string{"fixed-window on 3 servers, sync 500 ms, skewed", "sliding-log"}},
		{what: "a central store, route by key", change: map[string]any{"laneCentral0": true, "laneRoute0": "key"}, status: 200, limit: 5,
			lanes: []string{"fixed-window on 3 servers, central, route key, skewed", "sliding-log"}},
		{what: "back to one server: sync, route and offsets go", change: map[string]any{"laneNodes0": "1", "laneCentral0": false}, status: 200, limit: 5,
			lanes: []string{"fixed-window", "sliding-log"}},
		{what: "the sliding-log on 4 servers never syncing", change: map[string]any{"laneNodes1": "4", "laneSync1": "0"}, status: 200, limit: 5,
			lanes: []string{"fixed-window", "sliding-log on 4 servers, no sync"}},
	})
	if got := sess.Scenario().Specs()[0].Deployment; got != (scenario.Deployment{}) {
		t.Errorf("one server again: the lane keeps %+v, want no deployment", got)
	}
}

// A refused nodes value is shown next to the settings, worded as a
// scenario file's would be, with the lane named as the form labels it.
func TestPlaySettingsBadNodesNamesTheField(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sig, sess, _ := openPlayLink(t, url, store, scenario.EncodeURL(serversScenario()))
	sig["laneNodes1"] = "0"
	body, _ := json.Marshal(sig)
	res := post(t, url+"/play/"+sess.ID()+"/settings", string(body), sess)
	if res.status != http.StatusBadRequest {
		t.Fatalf("0 nodes: status %d, want 400", res.status)
	}
	reason := parseReason(t, `{"limit": 5, "windowMs": 1000, "policies": ["fixed-window", {"name": "sliding-log", "nodes": 0}], "requests": []}`, "policies[1].nodes")
	if want := "policies[1].nodes: " + reason; !strings.Contains(res.header.Get("X-Problem"), want) {
		t.Errorf("X-Problem = %q, want it to say %q", res.header.Get("X-Problem"), want)
	}
	if want := "Lane 2 nodes: " + reason; !strings.Contains(res.body, want) {
		t.Errorf("the settings' error slot does not say %q:\n%s", want, res.body)
	}
}

// Lanes set on several servers by the form reach the page: the lane is
// drawn on its three nodes, and the shared link and the scenario JSON
// carry the deployment, so that opening the link gives the same lanes.
func TestPlaySettingsServersReachTheLaneAndTheLink(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sig, sess, _ := openPlayLink(t, url, store, scenario.EncodeURL(serversScenario()))
	sig["laneNodes0"], sig["laneSync0"] = "3", "500"
	body, _ := json.Marshal(sig)
	if res := post(t, url+"/play/"+sess.ID()+"/settings", string(body), sess); res.status != http.StatusOK {
		t.Fatalf("3 nodes: status %d (%s)", res.status, res.header.Get("X-Problem"))
	}
	if err := sess.Fire(6); err != nil {
		t.Fatal(err)
	}
	want := scenario.Deployment{Nodes: 3, SyncMs: 500}
	page := get(t, url+"/play?s="+scenario.EncodeParam(sess.Scenario()))
	if page.status != http.StatusOK {
		t.Fatalf("GET the page: status %d", page.status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	lane := doc.Find(`[data-testid="lane"]`).First()
	if got := lane.AttrOr("data-label", ""); got != "fixed-window on 3 servers, sync 500 ms" {
		t.Errorf("the first lane is %q, want it on 3 servers", got)
	}
	var drawn []string
	lane.Find(`[data-testid="lane-node"] .lane-node-name`).Each(func(_ int, s *goquery.Selection) { drawn = append(drawn, s.Text()) })
	if strings.Join(drawn, ", ") != "node 1, node 2, node 3" {
		t.Errorf("the lane draws the states of %q, want node 1, node 2, node 3", drawn)
	}
	nodes := map[string]bool{}
	lane.Find("figure > .lane-scroll > svg text.mark-node").Each(func(_ int, s *goquery.Selection) { nodes[s.Text()] = true })
	if len(nodes) != 3 || !nodes["1"] || !nodes["2"] || !nodes["3"] {
		t.Errorf("the six requests' marks are numbered by nodes %v, want 1, 2 and 3", nodes)
	}
	link, ok := doc.Find(`[data-testid="share-link"]`).Attr("href")
	if !ok {
		t.Fatal("no share link on the page")
	}
	u, err := neturl.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := scenario.DecodeURL(u.Query())
	if err != nil {
		t.Fatalf("the shared link: %v", err)
	}
	if got := shared.Specs()[0].Deployment; got != want {
		t.Errorf("the shared link's first lane runs on %+v, want %+v", got, want)
	}
	fromJSON, err := scenario.Parse([]byte(doc.Find(`[data-testid="scenario-json"]`).Text()))
	if err != nil {
		t.Fatalf("the page's scenario JSON: %v", err)
	}
	if got := fromJSON.Specs()[0].Deployment; got != want {
		t.Errorf("the scenario JSON's first lane runs on %+v, want %+v", got, want)
	}
}
