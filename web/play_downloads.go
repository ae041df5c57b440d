package web

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// link redirects to the shared link of a session's scenario: the page points
// here when the link is too long to embed. With ?present=1 it opens the
// presentation view at the session's clock.
func (p *playground) link(w http.ResponseWriter, r *http.Request) {
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	to := play.EncodeURL(sess.Scenario())
	if r.URL.Query().Get("present") == "1" {
		to += "&present=1&t=" + strconv.FormatInt(sess.Now(), 10)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (p *playground) download(f func(w http.ResponseWriter, sc scenario.Scenario) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok := p.session(w, r)
		if !ok {
			return
		}
		if err := f(w, sess.Scenario()); err != nil {
			p.s.Fail(w, r, err)
		}
	}
}

func (p *playground) scenarioJSON(w http.ResponseWriter, sc scenario.Scenario) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="scenario.json"`)
	_, err := io.WriteString(w, scenarioText(sc)+"\n")
	return err
}

func (p *playground) decisionsJSON(w http.ResponseWriter, sc scenario.Scenario) error {
	res, err := scenario.Run(sc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="decisions.json"`)
	return json.NewEncoder(w).Encode(res)
}

// decisionsCSV writes one row per request and policy.
func (p *playground) decisionsCSV(w http.ResponseWriter, sc scenario.Scenario) error {
	res, err := scenario.Run(sc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="decisions.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"request", "at_ms", "key", "cost", "policy", "allowed", "retry_after_ms", "estimate", "capacity"})
	for _, pr := range res.Results {
		for _, d := range pr.Decisions {
			retry := ""
			if ms, ok := d.RetryAfter(); ok {
				retry = strconv.FormatInt(ms, 10)
			}
			_ = cw.Write([]string{strconv.Itoa(d.Index + 1), strconv.FormatInt(d.At, 10), neutraliseCell(d.Key), strconv.FormatInt(d.Cost, 10),
				neutraliseCell(pr.Label), strconv.FormatBool(d.Allowed()), retry, d.Estimate.Reduced().String(), strconv.FormatInt(d.Detail.Capacity, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// neutraliseCell keeps a spreadsheet from reading a text cell as a formula,
// as OWASP's "CSV Injection" page recommends: a cell starting with =, +, -,
// @, tab or carriage return gets a leading single quote. Only text a visitor
// chose (keys, and labels that name them) goes through it; numbers are
// written by the server and a negative one never occurs.
func neutraliseCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// linkDecisions serves the decisions of the scenario in ?s=, without a session.
func (p *playground) linkDecisions(asCSV bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sc, err := play.DecodeURL(r.URL.Query())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f := p.decisionsJSON
		if asCSV {
			f = p.decisionsCSV
		}
		if err := f(w, sc); err != nil {
			p.s.Fail(w, r, err)
		}
	}
}
