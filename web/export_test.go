package web

import (
	"time"

	"github.com/go-chi/chi/v5"
)

// What the external tests (package web_test: the site with its features,
// as cmd/playground wires it) need of the server's insides.

func (s *Server) Router() chi.Router { return s.router }

func (s *Server) TakeRunSlots(work int64) (release func(), ok bool) { return s.runs.tryAcquire(work) }

func (s *Server) SetRunTimeout(d time.Duration) { s.runTimeout = d }

func (s *Server) SetRunStarting(f func()) { s.runStarting = f }

const SmallRunWork = smallRunWork
