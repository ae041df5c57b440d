package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/internal/webtest"
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

// openServers opens the servers' fields as the page's script does (GET
// base/servers): it merges the signals of the answer into sig and returns
// the fields it sent.
func openServers(t *testing.T, base string, sig map[string]any) *goquery.Document {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/servers", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Datastar-Request", "true")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/servers: %d", base, res.StatusCode)
	}
	var fragments strings.Builder
	for _, ev := range webtest.ParseEvents(t, res.Body) {
		for _, d := range ev.Data {
			if js, ok := strings.CutPrefix(d, "signals "); ok {
				if err := json.Unmarshal([]byte(js), &sig); err != nil {
					t.Fatalf("the servers' signals %q: %v", js, err)
				}
			}
			if html, ok := strings.CutPrefix(d, "fragments "); ok {
				fragments.WriteString(html)
			}
		}
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(fragments.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The settings form sets each lane's servers through the settings action:
// nodes, sync, central and offsets land in the lane's deployment (and its
// label), a bad value is refused with a 400 naming the lane's field as a
// scenario file names it, with the same reason, and changes nothing.
func TestPlaySettingsSetServers(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sig, sess, doc := openPlayLink(t, url, store, scenario.EncodeURL(serversScenario()))
	if got := doc.Find(`[data-testid="lane-servers"]`).Length(); got != 0 {
		t.Errorf("the page is sent with %d lanes' server fields, want none until they are opened", got)
	}
	if _, ok := sig["laneNodes0"]; ok {
		t.Error("the page declares laneNodes0 before its field is sent")
	}
	fields := openServers(t, url+"/play/"+sess.ID(), sig)
	if got := fields.Find(`[data-testid="lane-servers"]`).Length(); got != 2 {
		t.Fatalf("%d lanes' server fields fetched, want 2", got)
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
	openServers(t, url+"/play/"+sess.ID(), sig)
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
	openServers(t, url+"/play/"+sess.ID(), sig)
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

// The servers' fields are sent with the page only when they are shown
// open: when some lane runs on several servers, or the page was asked for
// them (?servers=open). Otherwise the page holds their heading and the
// link that opens them, and declares none of their signals.
func TestPlayServersSentOnlyOpen(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	several, err := scenario.Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500}, "sliding-log"], "requests": []}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		link   string
		fields int
	}{
		{"one server a lane", scenario.EncodeURL(serversScenario()), 0},
		{"asked open", scenario.EncodeURL(serversScenario()) + "&servers=open", 2},
		{"asked something else", scenario.EncodeURL(serversScenario()) + "&servers=shut", 0},
		{"a lane on three nodes", scenario.EncodeURL(several), 2},
	}
	for _, tt := range tests {
		sig, sess, doc := openPlayLink(t, url, store, tt.link)
		details := doc.Find(`#play-servers`)
		if got := details.Find(`[data-testid="lane-servers"]`).Length(); got != tt.fields {
			t.Errorf("%s: %d lanes' server fields on the page, want %d", tt.name, got, tt.fields)
		}
		_, declared := sig["laneNodes1"]
		_, open := details.Attr("open")
		if shown := tt.fields > 0; declared != shown || open != shown {
			t.Errorf("%s: laneNodes1 declared %v, open %v; want both %v", tt.name, declared, open, shown)
		}
		link := details.Find(`[data-testid="servers-link"]`)
		if want := "/play/" + sess.ID() + "/servers#play-servers"; tt.fields == 0 && link.AttrOr("href", "") != want {
			t.Errorf("%s: the closed servers link to %q, want %q", tt.name, link.AttrOr("href", ""), want)
		}
		if tt.fields > 0 && link.Length() != 0 {
			t.Errorf("%s: the open servers still link to themselves", tt.name)
		}
	}
}

// Without scripts, the servers' link leads to a page of the same
// scenario with them open; for an ended session it says so.
func TestPlayServersWithoutScripts(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	_, sess, _ := openPlayLink(t, url, store, scenario.EncodeURL(serversScenario()))
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(url + "/play/" + sess.ID() + "/servers")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("GET servers without scripts: %d, want 303", res.StatusCode)
	}
	to := res.Header.Get("Location")
	if want := scenario.EncodeURL(serversScenario()) + "&servers=open"; to != want {
		t.Errorf("redirect to %q, want %q", to, want)
	}
	_, _, doc := openPlayLink(t, url, store, to)
	if got := doc.Find(`#play-servers[open] [data-testid="lane-servers"]`).Length(); got != 2 {
		t.Errorf("the page it leads to shows %d lanes' server fields open, want 2", got)
	}
	if r := get(t, url+"/play/no-such-session/servers"); r.status != http.StatusNotFound {
		t.Errorf("GET servers of an ended session: %d, want 404", r.status)
	}
}

// The settings' answer keeps the servers' fields of a page that holds
// them in step with its lanes (the stream does not carry them), and
// sends none to a page that does not.
func TestPlaySettingsAnswerKeepsTheServers(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sig, sess, _ := openPlayLink(t, url, store, scenario.EncodeURL(serversScenario()))
	base := url + "/play/" + sess.ID()
	apply := func(step string) response {
		t.Helper()
		body, _ := json.Marshal(sig)
		res := post(t, base+"/settings", string(body), sess)
		if res.status != http.StatusOK {
			t.Fatalf("%s: status %d (%s)", step, res.status, res.header.Get("X-Problem"))
		}
		return res
	}
	sig["useTokenBucket"] = true
	if res := apply("step 1, closed"); strings.Contains(res.body, "play-server-fields") || strings.Contains(res.body, "laneNodes") {
		t.Errorf("step 1: a page without the servers' fields is sent them:\n%s", res.body)
	}
	openServers(t, base, sig)
	sig["useGcra"] = true
	res := apply("step 2, open")
	var fragments strings.Builder
	for _, ev := range webtest.ParseEvents(t, strings.NewReader(res.body)) {
		for _, d := range ev.Data {
			if html, ok := strings.CutPrefix(d, "fragments "); ok && strings.Contains(html, `id="play-server-fields"`) {
				fragments.WriteString(html)
			}
		}
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(fragments.String()))
	if err != nil {
		t.Fatal(err)
	}
	lanes := len(sess.Scenario().Specs())
	if got := doc.Find(`[data-testid="lane-servers"]`).Length(); got != lanes || lanes != 4 {
		t.Errorf("step 2: the answer holds %d lanes' server fields for %d lanes, want 4", got, lanes)
	}
	if !strings.Contains(res.body, fmt.Sprintf(`"laneNodes%d"`, lanes-1)) {
		t.Errorf("step 2: the answer does not declare the new lane's laneNodes%d:\n%s", lanes-1, res.body)
	}
}
