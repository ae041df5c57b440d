package play

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/onredis"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/fanout"
	"github.com/windowlab/playground/web/play/pages"
	"github.com/windowlab/playground/web/templates"
)

// Playground is the /play feature: the page, its stream, its actions and
// the downloads. See package play for the URL of a shared scenario.
//
//	GET  /play                       a new session (?s=<scenario>&t=<ms>&present=1&servers=open)
//	POST /play/load                  pasted or uploaded scenario JSON → 303 to its link
//	GET  /play/decisions.{json,csv}  decisions of ?s=<scenario>, no session needed
//	GET  /play/{id}/stream           the Datastar SSE stream of one session
//	POST /play/{id}/{action}         one route per action (actions): fire, burst,
//	                                 pattern, step, jump, toggle, play, pause, speed,
//	                                 reset, settings, client?i=, client/add,
//	                                 client/rename, select, view (the lanes' span)
//	GET  /play/{id}/scenario.json    the scenario; decisions.json, decisions.csv
//	GET  /play/{id}/link             303 to the scenario's shared link (for long ones)
//	GET  /play/{id}/servers          the servers' fields, as Datastar events; without
//	                                 Datastar, 303 to the link with ?servers=open
//
// The id lets whoever holds it watch a session (its stream, downloads and
// link); the actions also need the control cookie that GET /play gives the
// browser opening the session (see Controls).
func Playground(store play.Sessions, observers ...ActionObserver) web.Feature {
	return PlaygroundWith(store, Options{}, observers...)
}

// Options are what a playground may add to its lanes.
type Options struct {
	// Redis, when set, decides every session's requests again on Redis,
	// shown under each lane (serve -redis).
	Redis *onredis.Mirror
}

// PlaygroundWith is Playground with opts.
func PlaygroundWith(store play.Sessions, opts Options, observers ...ActionObserver) web.Feature {
	return web.FeatureFunc(func(s *web.Server, r chi.Router) error {
		if store == nil {
			return errors.New("web: Playground expects a store")
		}
		presets, err := presetLinks()
		if err != nil {
			return err
		}
		p := &playground{s: s, store: store, observers: observers, presets: presets, redis: opts.Redis}
		r.Get("/play", p.page)
		r.Post("/play/load", p.load)
		r.Get("/play/preset/{name}", p.preset)
		r.Get("/play/decisions.json", p.decisions(true, false))
		r.Get("/play/decisions.csv", p.decisions(true, true))
		r.Route("/play/{id}", func(r chi.Router) {
			r.Get("/stream", p.stream)
			r.Get("/scenario.json", p.download(p.scenarioJSON))
			r.Get("/link", p.link)
			r.Get("/servers", p.servers)
			r.Get("/decisions.json", p.decisions(false, false))
			r.Get("/decisions.csv", p.decisions(false, true))
			for _, a := range actions {
				r.Post("/"+a.path, p.action(a))
			}
		})
		return nil
	})
}

type playground struct {
	observers []ActionObserver
	s         *web.Server
	store     play.Sessions
	hubs      fanout.Hubs[*sessionHub]
	presets   []pages.Preset // with the links that open them
	redis     *onredis.Mirror
}

func (p *playground) pageData(r *http.Request, sess *play.Session) pages.PlayPage {
	return p.pageDataCached(r, sess, &shareCache{})
}

// shareCache keeps a stream's shared link and scenario JSON while the
// scenario stays the same: encoding 5,000 requests costs more than a replay.
type shareCache struct {
	rev         uint64
	valid       bool
	share, json string
}

func (p *playground) pageDataCached(r *http.Request, sess *play.Session, c *shareCache) pages.PlayPage {
	v := sess.View()
	if !c.valid || c.rev != v.ScenarioRev {
		c.rev, c.valid = v.ScenarioRev, true
		c.share, c.json = scenario.EncodeURL(v.Scenario), scenarioText(v.Scenario)
	}
	pp := pages.PlayPage{
		Page:    p.s.Page(r, "Playground", templates.SectionPlay),
		Narrow:  narrow(r),
		View:    v,
		Base:    "/play/" + v.ID,
		Share:   c.share,
		JSON:    c.json,
		Presets: p.presets,
	}
	if p.redis != nil {
		// Redis is asked only when the scenario has changed: every other
		// update of the session reads the replay the mirror keeps.
		pp.Redis = p.redis.Replay(r.Context(), v.ID, v.ScenarioRev, v.Scenario)
	}
	return pp
}

// narrow reports whether the page's stream asked for lanes drawn for a
// phone (?narrow=1: pages.StreamOnLoad adds it on a narrow screen).
func narrow(r *http.Request) bool { return r.URL.Query().Get("narrow") == "1" }

func scenarioText(sc scenario.Scenario) string {
	data, _ := json.MarshalIndent(sc, "", "  ") // numbers and strings only
	return string(data)
}

// page opens a new session, from the shared scenario in ?s= when there is one.
func (p *playground) page(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sc := play.DefaultScenario()
	var linkErr scenario.Errors
	if q.Has("s") {
		got, err := scenario.DecodeURL(q)
		if err != nil {
			linkErr = asErrors(err, "s")
		} else {
			sc = got
		}
	}
	if !p.s.Admit(w, r, web.LimitSessions, p.s.ClientAddress(r)) {
		web.TooMany(w, "new playgrounds")
		return
	}
	ctx := r.Context()
	sess, err := p.store.NewFor(ctx, p.s.ClientAddress(r), scenario.Scenario{})
	// Only the session NewFor made holds its ControlToken: a store that
	// decodes what it kept (NATS) hands back copies with the token's hash.
	opened := sess
	if err == nil {
		var loaded *play.Session
		loaded, err = p.store.Update(ctx, sess.ID(), func(s *play.Session) error { return s.Load(sc) })
		if web.StoreUnreachable(err) {
			p.s.StoreUnreachablePage(w, r)
			return
		}
		if err != nil {
			linkErr = asErrors(err, "s")
		} else {
			sess = loaded
		}
	}
	if errors.Is(err, play.ErrFull) {
		p.refuseFull(w, r)
		return
	}
	if err != nil && linkErr == nil {
		p.s.Fail(w, r, err)
		return
	}
	scenarioRefused := linkErr != nil
	if q.Has("t") {
		t, err := strconv.ParseInt(q.Get("t"), 10, 64)
		if err == nil {
			var jumped *play.Session
			if jumped, err = p.store.Update(ctx, sess.ID(), func(s *play.Session) error { return s.Jump(t) }); err == nil {
				sess = jumped
			}
		}
		if web.StoreUnreachable(err) {
			p.s.StoreUnreachablePage(w, r)
			return
		}
		if err != nil {
			// The clock stays where Load put it.
			linkErr = append(linkErr, scenario.FieldError{Field: "t", Reason: fmt.Sprintf("%q is not a clock time (whole milliseconds from 0 to %d)", q.Get("t"), int64(play.MaxClock))})
		}
	}
	grantControl(w, r, opened)
	pp := p.pageData(r, sess)
	pp.Presenting = p.presentingRoom(r)
	pp.ServersOpen = q.Get("servers") == "open"
	status := http.StatusOK
	if linkErr != nil {
		// The visitor still gets a working playground, under a notice
		// that says what the link got wrong and what they see instead.
		pp.Errors = prefixErrors(linkErr, "the shared link: ")
		instead := "This is the default playground instead, not the link's scenario."
		if !scenarioRefused {
			instead = "The link's scenario is loaded below, with the clock at " + scenario.FormatMs(pp.View.Clock.Now) + "."
		}
		p.setProblem(&pp, pages.PlayProblem{Heading: "The shared link could not be opened", Instead: instead})
		status = http.StatusBadRequest
	}
	p.s.Render(w, r, status, pages.PlayPageView(pp))
}

// setProblem puts a problem at the top of the page and in its title, with
// the page's errors as its reasons.
func (p *playground) setProblem(pp *pages.PlayPage, problem pages.PlayProblem) {
	for _, e := range pp.Errors {
		problem.Reasons = append(problem.Reasons, e.Error())
	}
	pp.Problem = &problem
	pp.Page.Title = "Problem: " + problem.Heading + " · " + pp.Page.Title
}

// refuseFull answers 503 when the store has no room, logged with the other
// refusals for capacity.
func (p *playground) refuseFull(w http.ResponseWriter, r *http.Request) {
	p.s.NoteCapacity(w, r, web.PlaceRetryAfter)
	full := web.ProblemOf(play.ErrFull)
	http.Error(w, full.Message, full.Status)
}

func prefixErrors(errs scenario.Errors, prefix string) scenario.Errors {
	out := make(scenario.Errors, len(errs))
	for i, e := range errs {
		msg := e.Error()
		if e.Field == "s" {
			// The scenario's reason says it is about the link's scenario
			// ("the link's scenario does not decompress"), and "s:" before
			// it reads as a stray letter. The clock's t stays named.
			msg = e.Reason
		}
		out[i] = scenario.FieldError{Field: "", Reason: prefix + msg}
	}
	return out
}

// asErrors turns err into field errors, naming field when it names none.
func asErrors(err error, field string) scenario.Errors {
	var errs scenario.Errors
	if errors.As(err, &errs) {
		return errs
	}
	return scenario.Errors{{Field: field, Reason: strings.TrimPrefix(err.Error(), "play: ")}}
}

// load reads a pasted or uploaded scenario and redirects to its link. The
// whole body is bounded by limitBodies, so an uploaded file stays in memory
// (ParseMultipartForm keeps up to that much) and any temp file is removed.
func (p *playground) load(w http.ResponseWriter, r *http.Request) {
	var data []byte
	cleanup, err := web.ReadForm(r)
	defer cleanup()
	status := http.StatusBadRequest
	switch {
	case web.BodyTooLarge(err):
		status, err = http.StatusRequestEntityTooLarge, scenario.TooLarge()
	case err == nil:
		if f, _, ferr := r.FormFile("file"); ferr == nil {
			data, _ = io.ReadAll(io.LimitReader(f, scenario.MaxBodyBytes+1))
			f.Close()
		}
		if len(bytes.TrimSpace(data)) == 0 {
			data = []byte(r.FormValue("scenario"))
		}
		var sc scenario.Scenario
		sc, err = scenario.Parse(data)
		if err == nil && len(sc.Policies) == 0 {
			sc.Policies = scenario.DefaultPolicies()
		}
		if err == nil {
			// A valid scenario the playground cannot hold is refused here,
			// next to the pasted text, not after a redirect that loses it.
			err = play.Check(sc)
		}
		if err == nil {
			http.Redirect(w, r, scenario.EncodeURL(sc), http.StatusSeeOther)
			return
		}
	default:
		err = scenario.Errors{{Reason: "the form could not be read: " + err.Error()}}
	}
	if !p.s.Admit(w, r, web.LimitSessions, p.s.ClientAddress(r)) {
		web.TooMany(w, "new playgrounds")
		return
	}
	sess, serr := p.store.NewFor(r.Context(), p.s.ClientAddress(r), scenario.Scenario{})
	if web.StoreUnreachable(serr) {
		p.s.StoreUnreachablePage(w, r)
		return
	}
	if serr != nil {
		p.refuseFull(w, r)
		return
	}
	grantControl(w, r, sess)
	pp := p.pageData(r, sess)
	pp.Errors = prefixErrors(asErrors(err, ""), "the scenario you loaded: ")
	pp.LoadText = string(data)
	p.setProblem(&pp, pages.PlayProblem{
		Heading:    "Nothing was loaded",
		Instead:    "This is the default playground instead.",
		InLoadForm: len(data) > 0,
	})
	p.s.Render(w, r, status, pages.PlayPageView(pp))
}

// session reads the session of the request's URL, or answers that it has
// ended.
func (p *playground) session(w http.ResponseWriter, r *http.Request) (*play.Session, bool) {
	sess, err := p.store.Get(r.Context(), chi.URLParam(r, "id"))
	if errors.Is(err, play.ErrNotFound) {
		p.sessionEnded(w, r)
		return nil, false
	}
	if err != nil {
		p.storeFailed(w, r, err)
		return nil, false
	}
	return sess, true
}

// storeFailed answers a store error that does not say the session is
// gone (one out of reach, or a NATS cluster electing a new leader): 503
// and the page retries, never "ended", which would stop it for good.
func (p *playground) storeFailed(w http.ResponseWriter, r *http.Request, err error) {
	if !web.StoreUnreachable(err) {
		p.s.Log().Warn("play: the store failed; answered as unreachable", slog.Any("error", err))
	}
	p.s.StoreUnreachablePage(w, r)
}

// sessionEnded answers a request for a session the store no longer holds.
func (p *playground) sessionEnded(w http.ResponseWriter, r *http.Request) {
	ended := web.ProblemOf(play.ErrNotFound)
	if r.Header.Get("Datastar-Request") == "true" {
		// The page's buttons and stream show nothing of a plain 404:
		// say it where the learner looks, as events (Datastar applies
		// those whatever the status).
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(ended.Status)
		_ = web.MergeComponent(datastar.NewSSE(w, r), pages.PlaySessionEnded())
		return
	}
	http.Error(w, ended.Message, ended.Status)
}
