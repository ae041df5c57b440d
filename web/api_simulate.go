package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/scenario"
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
// The body must arrive within BodyReadTimeout (else 408), and only then is
// a run slot taken: a body sent a byte a second used to hold the only slot
// until the server's 15 s ReadTimeout. Runs share the server's run
// capacity (see runScenario): beyond it the answer is 503 with
// Retry-After. Each client's calls are limited too (clientLimits).
func (s *Server) handleSimulate(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) { writeJSON(w, r, s.log, status, apiError{Error: msg}) }
	client := s.ClientAddress(r)
	if !s.limits.simulate.allow(w, r, client) {
		fail(http.StatusTooManyRequests, "too many scenarios from this network address just now: wait "+w.Header().Get("Retry-After")+" s (the RateLimit fields say how many remain)")
		return
	}
	data, status, err := s.readBody(w, r, client)
	switch {
	case status == http.StatusRequestEntityTooLarge:
		s.writeScenarioErrors(w, r, status, scenario.TooLarge())
		return
	case status == http.StatusServiceUnavailable:
		s.refuseBusy(w, r, fail)
		return
	case err != nil:
		fail(status, err.Error())
		return
	}
	ticket, ok := s.runs.admit()
	if !ok {
		s.refuseBusy(w, r, fail)
		return
	}
	defer ticket.release()
	sc, err := scenario.Parse(data)
	var res scenario.Result
	if err == nil {
		res, err = s.runSimulation(r, ticket, sc)
	}
	var errs scenario.Errors
	switch {
	case err == nil:
		writeResult(w, r, s.log, res)
	case errors.As(err, &errs):
		s.writeScenarioErrors(w, r, http.StatusBadRequest, errs)
	case errors.Is(err, errBusy):
		s.refuseBusy(w, r, fail)
	case r.Context().Err() != nil:
		// The client left (nobody reads this) or the server is stopping.
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
		fail(http.StatusServiceUnavailable, "the run was cancelled: the server is restarting, or the request ended")
	default:
		s.log.Error("simulate", slog.Any("error", err))
		fail(http.StatusInternalServerError, "the scenario could not be run")
	}
}

func (s *Server) writeScenarioErrors(w http.ResponseWriter, r *http.Request, status int, errs scenario.Errors) {
	body := apiError{Error: errs.Error()}
	for _, e := range errs {
		body.Fields = append(body.Fields, fieldError{e.Field, e.Reason})
	}
	writeJSON(w, r, s.log, status, body)
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

// setupAPIRoutes adds the machine-facing endpoints.
func setupAPIRoutes(s *Server, r chi.Router) error {
	r.Post("/api/simulate", s.handleSimulate)
	return nil
}

// Bounds on reading /api/simulate's body, which happens before a run slot
// is taken, so a slow body holds no slot but its own.
const (
	// BodyReadTimeout is how long the body may take to arrive: 1 MB (the
	// largest scenario) in 2 s wants 4 Mbit/s, and a scenario a script
	// writes is a few KB.
	BodyReadTimeout = 2 * time.Second
	// bodyReadsPerClient and bodyReads bound the bodies being read at
	// once, from one client and from all: each may be up to
	// scenario.MaxBodyBytes in memory, so all together hold at most 64 MB,
	// and one client's slow bodies take at most 4 of the 64 places.
	bodyReadsPerClient = 4
	bodyReads          = 64
)

// readBody reads r's body within BodyReadTimeout, in one of the places for
// bodies being read. It returns the status to answer when it cannot: 408
// for a body that did not arrive in time, 413 for one over the bound, 503
// when every place is taken.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, client string) ([]byte, int, error) {
	release, ok := s.bodies.take(client)
	if !ok || !s.bodySlots.TryAcquire(1) {
		if ok {
			release()
		}
		return nil, http.StatusServiceUnavailable, errBusy
	}
	defer s.bodySlots.Release(1)
	defer release()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.bodyRead))
	data, err := io.ReadAll(r.Body)
	_ = rc.SetReadDeadline(time.Time{})
	switch {
	case bodyTooLarge(err):
		return nil, http.StatusRequestEntityTooLarge, err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, http.StatusRequestTimeout, fmt.Errorf("the request body did not arrive within %v: send the whole scenario at once", s.bodyRead)
	case err != nil:
		return nil, http.StatusBadRequest, errors.New("the request body could not be read: " + err.Error())
	}
	return data, http.StatusOK, nil
}
