package play

import (
	"net/http"

	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/play/pages"
)

// ControlCookie holds a session's play.Session.ControlToken in the browser
// that opened it. Its path is the session's own (/play/{id}), so a browser
// sends only the cookie of the session it acts on: however many sessions a
// browser opens, its requests carry at most one of these (about 60 bytes),
// and the browser's own cap on cookies per site (some 150–180) forgets the
// oldest. It lasts as long as the browser session; the session itself ends
// after play.IdleTimeout unwatched.
const ControlCookie = "wl-control"

// grantControl gives the browser asking for r the right to change sess: an
// HttpOnly, SameSite=Strict cookie that no page script, other site or link
// can carry.
func grantControl(w http.ResponseWriter, r *http.Request, sess *play.Session) {
	http.SetCookie(w, &http.Cookie{
		Name:     ControlCookie,
		Value:    sess.ControlToken(),
		Path:     "/play/" + sess.ID(),
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
}

// Controls reports whether r comes from the browser that opened sess. Every
// route that changes a session checks it (the playground's actions in
// playground.action); the session's id alone only lets its holder watch.
// The cookie reaches only routes under /play/{id}/.
func Controls(r *http.Request, sess *play.Session) bool {
	for _, c := range r.CookiesNamed(ControlCookie) {
		if sess.Controls(c.Value) {
			return true
		}
	}
	return false
}

// RefuseControl answers an action from a browser that may only watch: 403,
// and for the page's own requests the reason where the summary is.
func RefuseControl(w http.ResponseWriter, r *http.Request) {
	const msg = "Only the browser that opened this playground can change it; its address lets you watch it. Open /play for a playground of your own."
	if r.Header.Get("Datastar-Request") == "true" {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Problem", msg)
		w.WriteHeader(http.StatusForbidden)
		_ = web.MergeComponent(datastar.NewSSE(w, r), pages.PlayWatchOnly())
		return
	}
	http.Error(w, msg, http.StatusForbidden)
}
