package simulate

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
)

// apiError is the body of every 4xx the API answers: a sentence for people
// and, for scenario problems, the fields for programs.
type apiError struct {
	Error  string       `json:"error"`
	Fields []fieldError `json:"fields,omitempty"`
}

type fieldError struct {
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
}

// handleSimulate answers POST /api/simulate: the same scenario JSON as the
// simulate command takes, and the same result JSON it prints with --json
// (with ?headers=true, what it prints with --json --headers: see
// runSimulation).
// The body must arrive within web.BodyReadTimeout (else 408), and only then is
// a run slot taken: a body sent a byte a second used to hold the only slot
// until the server's 15 s ReadTimeout. Runs share the server's run
// capacity (see runScenario): beyond it the answer is 503 with
// Retry-After. Each client's calls are limited too (clientLimits).
func (a api) handleSimulate(w http.ResponseWriter, r *http.Request) {
	s := a.s
	fail := func(status int, msg string) { writeJSON(w, r, s.Log(), status, apiError{Error: msg}) }
	client := s.ClientAddress(r)
	if !s.Admit(w, r, web.LimitSimulate, client) {
		fail(http.StatusTooManyRequests, "too many scenarios from this network address just now: wait "+w.Header().Get("Retry-After")+" s (the RateLimit fields say how many remain)")
		return
	}
	data, status, err := s.ReadBody(w, r, client)
	switch {
	case status == http.StatusRequestEntityTooLarge:
		writeScenarioErrors(s, w, r, status, scenario.TooLarge())
		return
	case status == http.StatusServiceUnavailable:
		s.RefuseBusy(w, r, fail)
		return
	case err != nil:
		fail(status, err.Error())
		return
	}
	ticket, ok := s.AdmitRun()
	if !ok {
		s.RefuseBusy(w, r, fail)
		return
	}
	defer ticket.Release()
	sc, err := scenario.ParseRun(data)
	var res scenario.Result
	if err == nil {
		res, err = runSimulation(s, r, ticket, sc)
	}
	var errs scenario.Errors
	switch {
	case err == nil:
		writeResult(w, r, s.Log(), res)
	case errors.As(err, &errs):
		writeScenarioErrors(s, w, r, http.StatusBadRequest, errs)
	case errors.Is(err, web.ErrBusy):
		s.RefuseBusy(w, r, fail)
	case r.Context().Err() != nil:
		// The client left (nobody reads this) or the server is stopping.
		w.Header().Set("Retry-After", explain.RetryAfter(web.RetryAfterSeconds*1000))
		fail(http.StatusServiceUnavailable, "the run was cancelled: the server is restarting, or the request ended")
	default:
		s.Log().Error("simulate", slog.Any("error", err))
		fail(http.StatusInternalServerError, "the scenario could not be run")
	}
}

func writeScenarioErrors(s *web.Server, w http.ResponseWriter, r *http.Request, status int, errs scenario.Errors) {
	body := apiError{Error: errs.Error()}
	for _, e := range errs {
		body.Fields = append(body.Fields, fieldError{e.Field, e.Reason})
	}
	writeJSON(w, r, s.Log(), status, body)
}

// writeResult writes a run's result as compact JSON one policy at a time, so
// a worst-case answer (some 12 MB) is never held whole in memory and stops
// when the client leaves. It is the JSON of json.Marshal(res).
func writeResult(w http.ResponseWriter, r *http.Request, log *slog.Logger, res scenario.Result) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	err := writeString(w, `{"results":[`)
	for i, pr := range res.Results {
		if err != nil || r.Context().Err() != nil {
			return
		}
		var data []byte
		if data, err = json.Marshal(pr); err == nil {
			if i > 0 {
				err = writeString(w, ",")
			}
			if err == nil {
				_, err = w.Write(data)
			}
		}
	}
	if err == nil {
		err = writeString(w, "]}\n")
	}
	if err != nil && r.Context().Err() == nil {
		log.Warn("writing simulate result", slog.Any("error", err))
	}
}

func writeString(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return err
}

func writeJSON(w http.ResponseWriter, r *http.Request, log *slog.Logger, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil && r.Context().Err() == nil {
		// A client that left is not worth a line: its context says so.
		log.Warn("writing JSON response", slog.Any("error", err))
	}
}

// API is the feature serving POST /api/simulate.
func API() web.Feature {
	return web.FeatureFunc(func(s *web.Server, r chi.Router) error {
		r.Post("/api/simulate", api{s}.handleSimulate)
		return nil
	})
}

// api holds what the handler needs of the server.
type api struct{ s *web.Server }
