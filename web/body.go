package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

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

// ReadBody reads r's body within BodyReadTimeout, in one of the places for
// bodies being read. It returns the status to answer when it cannot: 408
// for a body that did not arrive in time, 413 for one over the bound, 503
// when every place is taken.
func (s *Server) ReadBody(w http.ResponseWriter, r *http.Request, client string) ([]byte, int, error) {
	release, ok := s.bodies.take(client)
	if !ok || !s.bodySlots.TryAcquire(1) {
		if ok {
			release()
		}
		return nil, http.StatusServiceUnavailable, ErrBusy
	}
	defer s.bodySlots.Release(1)
	defer release()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.bodyRead))
	data, err := io.ReadAll(r.Body)
	_ = rc.SetReadDeadline(time.Time{})
	switch {
	case BodyTooLarge(err):
		return nil, http.StatusRequestEntityTooLarge, err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, http.StatusRequestTimeout, fmt.Errorf("the request body did not arrive within %v: send the whole scenario at once", s.bodyRead)
	case err != nil:
		return nil, http.StatusBadRequest, errors.New("the request body could not be read: " + err.Error())
	}
	return data, http.StatusOK, nil
}
