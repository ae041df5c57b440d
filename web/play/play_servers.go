package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/play/pages"
)

// The settings form's servers for each lane (play.ServerFields): read from
// the page's signals, then decoded by scenario.ParseDeployment, so that a
// learner reads of a lane's nodes what simulate says of the same field in
// a file, under the same name ("policies[1].nodes").

// servers answers the opening of the servers' fields (pages.PlayServers):
// to the page's script the fields of the session's lanes and their
// signals; without scripts, a redirect to a page of the same scenario
// with them open, as /link leads to one.
func (p *playground) servers(w http.ResponseWriter, r *http.Request) {
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	if r.Header.Get("Datastar-Request") != "true" {
		http.Redirect(w, r, scenario.EncodeURL(sess.Scenario())+"&servers=open", http.StatusSeeOther)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	sse := datastar.NewSSE(w, r)
	if err := web.MergeSignals(sse, pages.ServerSignals(sess.Scenario()), false); err != nil {
		return
	}
	_ = web.MergeComponent(sse, pages.PlayServerFields(sess.View(), true))
}

// serverSignals are one lane's server fields as the page sends them.
type serverSignals struct {
	Nodes, Sync NumberField
	Route, Skew string
	Central     bool
}

// readServers picks each lane's server fields from the page's signals:
// only the lanes whose nodes field is there (a caller other than the page
// sends none, and the lanes keep their servers).
func readServers(raw map[string]json.RawMessage) (map[int]serverSignals, error) {
	out := map[int]serverSignals{}
	for i := range scenario.MaxPolicies {
		f := play.ServerFieldsOf(i)
		if _, ok := raw[f.Nodes]; !ok {
			continue
		}
		var s serverSignals
		for _, v := range []struct {
			name string
			dst  any
		}{{f.Nodes, &s.Nodes}, {f.Sync, &s.Sync}, {f.Route, &s.Route}, {f.Skew, &s.Skew}, {f.Central, &s.Central}} {
			if data, ok := raw[v.name]; ok {
				if err := json.Unmarshal(data, v.dst); err != nil {
					return nil, fmt.Errorf("%s: %w", v.name, err)
				}
			}
		}
		out[i] = s
	}
	return out, nil
}

// servers reads the server fields of sc's lanes into the deployments the
// form sets (play.Form.Servers), naming a problem by the lane's field in
// the scenario ("policies[1].syncMs").
func (sig Signals) servers(sc scenario.Scenario) (map[int]scenario.Deployment, error) {
	var errs scenario.Errors
	out := map[int]scenario.Deployment{}
	for i, spec := range sc.Specs() {
		s, ok := sig.Servers[i]
		if !ok {
			continue
		}
		field, before := fmt.Sprintf("policies[%d]", i), len(errs)
		nodes, err := wholeNumber(field+".nodes", s.Nodes, fmt.Sprintf("a whole number of servers, from 1 to %d", scenario.MaxNodes))
		errs = appendErrors(errs, err)
		sync, err := wholeNumber(field+".syncMs", s.Sync, "a whole number of milliseconds between syncs (0 never syncs)")
		errs = appendErrors(errs, err)
		skew, err := offsets(field+".skewMs", s.Skew)
		errs = appendErrors(errs, err)
		if len(errs) > before {
			continue // the lane's fields are not all numbers yet
		}
		obj, _ := json.Marshal(play.ServerObject(nodes, sync, s.Route, s.Central, skew, spec.Deployment)) // numbers, strings, a list
		d, es := scenario.ParseDeployment(obj)
		for _, e := range es {
			e.Field = strings.TrimSuffix(field+"."+e.Field, ".")
			errs = append(errs, e)
		}
		if len(es) == 0 {
			out[i] = d
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// wholeNumber reads a whole number of any size a deployment field may
// hold; its range is scenario.ParseDeployment's to check and word.
func wholeNumber(field string, n NumberField, want string) (int64, error) {
	v, err := n.number(field, want)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, scenario.Errors{{Field: field, Reason: fmt.Sprintf("%s is not a whole number: give %s", n.shown(v), want)}}
	}
	return int64(v), nil
}

// offsets reads the clock offsets field: whole milliseconds separated by
// commas or spaces ("0, 300, -200"); empty for none.
func offsets(field, text string) ([]int64, error) {
	var out []int64
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
		ms, err := strconv.ParseInt(strings.TrimPrefix(part, "+"), 10, 64)
		if err != nil {
			return nil, scenario.Errors{{Field: field, Reason: fmt.Sprintf("“%s” is not a whole number of milliseconds: give one offset per node, such as 0, 300, -200", web.Truncate(part, 40))}}
		}
		if len(out) == scenario.MaxNodes {
			return nil, scenario.Errors{{Field: field, Reason: fmt.Sprintf("more than %d offsets: give one per node", scenario.MaxNodes)}}
		}
		out = append(out, ms)
	}
	return out, nil
}

// appendErrors adds err's field errors to errs.
func appendErrors(errs scenario.Errors, err error) scenario.Errors {
	var fe scenario.Errors
	if errors.As(err, &fe) {
		errs = append(errs, fe...)
	}
	return errs
}
