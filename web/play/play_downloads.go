package play

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
)

// link redirects to the shared link of a session's scenario: the page points
// here when the link is too long to embed. With ?present=1 it opens the
// presentation view at the session's clock.
func (p *playground) link(w http.ResponseWriter, r *http.Request) {
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	to := scenario.EncodeURL(sess.Scenario())
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

// decisions serves the decisions of a session's scenario (from ?s= when
// fromLink), as JSON or CSV, within the server's run capacity. Another
// site's page cannot make a browser fetch them: that would spend this
// server's work for that site.
func (p *playground) decisions(fromLink, asCSV bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if web.CrossSiteSubresource(r) {
			http.Error(w, "Decisions are not served to other sites' pages: open the link itself.", http.StatusForbidden)
			return
		}
		// The scenario is known before any work is admitted (a link's is in
		// its URL, already read), so the run reserves only its own share.
		var sc scenario.Scenario
		if fromLink {
			var err error
			if sc, err = scenario.DecodeURL(r.URL.Query()); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		} else {
			sess, ok := p.session(w, r)
			if !ok {
				return
			}
			sc = sess.Scenario()
		}
		ticket, ok := p.s.AdmitRunWork(web.RunWork(sc))
		if !ok {
			p.s.RefuseBusy(w, r, func(status int, msg string) { http.Error(w, msg, status) })
			return
		}
		defer ticket.Release()
		res, err := p.s.RunScenario(r, ticket, sc)
		switch {
		case errors.Is(err, web.ErrBusy):
			p.s.RefuseBusy(w, r, func(status int, msg string) { http.Error(w, msg, status) })
			return
		case err != nil && r.Context().Err() == nil:
			var errs scenario.Errors
			if errors.As(err, &errs) {
				http.Error(w, errs.Error(), http.StatusBadRequest)
				return
			}
		}
		if err == nil && asCSV {
			err = decisionsCSV(r.Context(), w, res)
		} else if err == nil {
			err = decisionsJSON(w, res)
		}
		if err != nil {
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

func decisionsJSON(w http.ResponseWriter, res scenario.Result) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="decisions.json"`)
	return json.NewEncoder(w).Encode(res)
}

// decisionsCSV writes one row per request and policy. It stops at the
// first failed write or once ctx is done (the client left), so an aborted
// download gives its run ticket back without writing 80,000 rows to no one.
func decisionsCSV(ctx context.Context, w http.ResponseWriter, res scenario.Result) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="decisions.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"request", "at_ms", "key", "cost", "policy", "allowed", "retry_after_ms", "delay_ms", "estimate", "capacity"})
	for _, pr := range res.Results {
		for _, d := range pr.Decisions {
			retry := ""
			if ms, ok := d.RetryAfter(); ok {
				retry = strconv.FormatInt(ms, 10)
			}
			if err := cw.Write([]string{strconv.Itoa(d.Index + 1), strconv.FormatInt(d.At, 10), neutraliseCell(d.Key), strconv.FormatInt(d.Cost, 10),
				neutraliseCell(pr.Label), strconv.FormatBool(d.Allowed()), retry, delayCell(d), d.Estimate.Reduced().String(), strconv.FormatInt(d.Detail.Capacity, 10)}); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// delayCell is an admitted request's wait in a queue in ms ("0" when it
// passed at once); empty for a refusal or a probe, which wait for nothing.
func delayCell(d scenario.Decision) string {
	if !d.Allowed() {
		return ""
	}
	return strconv.FormatInt(d.Detail.DelayMs, 10)
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
