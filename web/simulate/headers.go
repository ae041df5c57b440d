package simulate

import (
	"net/http"
	"strconv"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
)

// headersWork is how many plain decisions one decision with its headers
// costs: explain.Headers peeks the policy some 40 times to find the
// effective window and serialises two structured fields, about five
// times a decision on the machine measured (docs/scenario.md).
const headersWork = 5

// runSimulation runs sc as /api/simulate asked: with ?headers=true (or 1)
// every decision carries the response headers a server enforcing its
// policy would send (explain.Run, the code the playground's panel and
// simulate --headers use); without, the plain run. A headers value that is
// not a boolean is the client's mistake, answered 400 naming the field.
func runSimulation(s *web.Server, r *http.Request, t *web.RunTicket, sc scenario.Scenario) (scenario.Result, error) {
	want := false
	if v := r.URL.Query().Get("headers"); v != "" {
		var err error
		if want, err = strconv.ParseBool(v); err != nil {
			return scenario.Result{}, scenario.Errors{{Field: "headers", Reason: "the query parameter headers is true or false, not " + strconv.Quote(v)}}
		}
	}
	if !want {
		return s.RunScenario(r, t, sc)
	}
	return s.RunScenarioWith(r, t, sc, explain.Run, headersWork)
}
