package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/web/templates"
)

// setupSiteRoutes adds the pages that are not a feature of their own.
func setupSiteRoutes(s *Server, r chi.Router) error {
	r.Get("/", s.home)
	r.Get("/healthz", healthz)
	r.Get("/static/{file}", s.assets.serve(s.NotFound))
	return nil
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	// The picture is the policies' replay of a fixed scenario: it cannot
	// fail but on a broken build, and the page is still useful without it.
	pic, err := templates.Picture()
	if err != nil {
		s.log.Error("home picture", "err", err)
	}
	s.Render(w, r, http.StatusOK, templates.Home(s.Page(r, "", templates.SectionNone), pic))
}

func healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok"))
}
