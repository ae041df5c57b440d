package web

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

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
// simulate command takes, and the same result JSON it prints with --json.
func handleSimulate(log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := scenario.Decode(r.Body)
		if err == nil {
			var res scenario.Result
			if res, err = scenario.Run(s); err == nil {
				writeJSON(w, log, http.StatusOK, res)
				return
			}
		}
		var errs scenario.Errors
		if !errors.As(err, &errs) {
			log.Error("simulate", slog.Any("error", err))
			writeJSON(w, log, http.StatusInternalServerError, apiError{Error: "the scenario could not be run"})
			return
		}
		body := apiError{Error: errs.Error()}
		for _, e := range errs {
			body.Fields = append(body.Fields, fieldError{e.Field, e.Reason})
		}
		writeJSON(w, log, http.StatusBadRequest, body)
	}
}

func writeJSON(w http.ResponseWriter, log *slog.Logger, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		log.Warn("writing JSON response", slog.Any("error", err))
	}
}

// setupAPIRoutes adds the machine-facing endpoints.
func setupAPIRoutes(s *Server, r chi.Router) error {
	r.Post("/api/simulate", handleSimulate(s.log))
	return nil
}
