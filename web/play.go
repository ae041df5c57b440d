package web

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/templates"
)

// Playground is the /play feature: the page, its stream, its actions and
// the downloads. See package play for the URL of a shared scenario.
//
//	GET  /play                       a new session (?s=<scenario>&t=<ms>&present=1)
//	POST /play/load                  pasted or uploaded scenario JSON → 303 to its link
//	GET  /play/decisions.{json,csv}  decisions of ?s=<scenario>, no session needed
//	GET  /play/{id}/stream           the Datastar SSE stream of one session
//	POST /play/{id}/{action}         fire, burst, pattern, step, jump, toggle, speed,
//	                                 reset, settings, client?i=, client/add,
//	                                 client/rename, select
//	GET  /play/{id}/scenario.json    the scenario; decisions.json, decisions.csv
//	GET  /play/{id}/link             303 to the scenario's shared link (for long ones)
func Playground(store *play.Store) Feature {
	return FeatureFunc(func(s *Server, r chi.Router) error {
		if store == nil {
			return errors.New("web: Playground expects a store")
		}
		p := &playground{s: s, store: store}
		r.Get("/play", p.page)
		r.Post("/play/load", p.load)
		r.Get("/play/decisions.json", p.linkDecisions(false))
		r.Get("/play/decisions.csv", p.linkDecisions(true))
		r.Route("/play/{id}", func(r chi.Router) {
			r.Get("/stream", p.stream)
			r.Get("/scenario.json", p.download(p.scenarioJSON))
			r.Get("/link", p.link)
			r.Get("/decisions.json", p.download(p.decisionsJSON))
			r.Get("/decisions.csv", p.download(p.decisionsCSV))
			r.Post("/{action}", p.action)
			r.Post("/client/{action}", p.action)
		})
		return nil
	})
}

type playground struct {
	s     *Server
	store *play.Store
}

// UpdateInterval is the shortest gap between two updates of one stream:
// at most ten a second while the clock plays.
const UpdateInterval = 100 * time.Millisecond

func (p *playground) pageData(r *http.Request, sess *play.Session) templates.PlayPage {
	return p.pageDataCached(r, sess, &shareCache{})
}

// shareCache keeps a stream's shared link and scenario JSON while the
// scenario stays the same: encoding 5,000 requests costs more than a replay.
type shareCache struct {
	rev         uint64
	valid       bool
	share, json string
}

func (p *playground) pageDataCached(r *http.Request, sess *play.Session, c *shareCache) templates.PlayPage {
	v := sess.View()
	if !c.valid || c.rev != v.ScenarioRev {
		c.rev, c.valid = v.ScenarioRev, true
		c.share, c.json = play.EncodeURL(v.Scenario), scenarioText(v.Scenario)
	}
	return templates.PlayPage{
		Page:  p.s.Page(r, "Playground", templates.SectionPlay),
		View:  v,
		Base:  "/play/" + v.ID,
		Share: c.share,
		JSON:  c.json,
	}
}

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
		got, err := play.DecodeURL(q)
		if err != nil {
			linkErr = asErrors(err, "s")
		} else {
			sc = got
		}
	}
	sess, err := p.store.New(scenario.Scenario{})
	if err == nil {
		err = sess.Load(sc)
		if err != nil {
			linkErr = asErrors(err, "s")
		}
	}
	if errors.Is(err, play.ErrFull) {
		http.Error(w, "The playground is full: too many sessions are open. Try again in a few minutes.", http.StatusServiceUnavailable)
		return
	}
	if err != nil && linkErr == nil {
		p.s.Fail(w, r, err)
		return
	}
	if t, err := strconv.ParseInt(q.Get("t"), 10, 64); err == nil {
		_ = sess.Jump(t) // out of range: the clock stays where Load put it
	}
	pp := p.pageData(r, sess)
	status := http.StatusOK
	if linkErr != nil {
		// The visitor still gets a working playground, with the link's
		// problem shown where loading is explained.
		pp.Errors = prefixErrors(linkErr, "the shared link: ")
		status = http.StatusBadRequest
	}
	p.s.Render(w, r, status, templates.PlayPageView(pp))
}

func prefixErrors(errs scenario.Errors, prefix string) scenario.Errors {
	out := make(scenario.Errors, len(errs))
	for i, e := range errs {
		out[i] = scenario.FieldError{Field: "", Reason: prefix + e.Error()}
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

// load reads a pasted or uploaded scenario and redirects to its link.
func (p *playground) load(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, scenario.MaxBodyBytes+64<<10)
	var data []byte
	if err := r.ParseMultipartForm(scenario.MaxBodyBytes); err == nil || errors.Is(err, http.ErrNotMultipart) {
		if f, _, ferr := r.FormFile("file"); ferr == nil {
			data, _ = io.ReadAll(io.LimitReader(f, scenario.MaxBodyBytes+1))
			f.Close()
		}
		if len(bytes.TrimSpace(data)) == 0 {
			data = []byte(r.FormValue("scenario"))
		}
	}
	sc, err := scenario.Parse(data)
	if err == nil && len(sc.Policies) == 0 {
		sc.Policies = scenario.DefaultPolicies()
	}
	if err == nil {
		http.Redirect(w, r, play.EncodeURL(sc), http.StatusSeeOther)
		return
	}
	sess, serr := p.store.New(scenario.Scenario{})
	if serr != nil {
		http.Error(w, "The playground is full: try again in a few minutes.", http.StatusServiceUnavailable)
		return
	}
	pp := p.pageData(r, sess)
	pp.Errors = prefixErrors(asErrors(err, ""), "the scenario you loaded: ")
	pp.LoadText = string(data)
	p.s.Render(w, r, http.StatusBadRequest, templates.PlayPageView(pp))
}

func (p *playground) session(w http.ResponseWriter, r *http.Request) (*play.Session, bool) {
	sess, err := p.store.Get(chi.URLParam(r, "id"))
	if err != nil {
		http.Error(w, "This playground session has ended (it was idle, or the server restarted). Reload the page to start a new one.", http.StatusNotFound)
		return nil, false
	}
	return sess, true
}

// playSignals are the page's signals as the browser sends them. Numbers
// arrive as JSON numbers (an empty field is 0); each action validates the
// ones it uses.
type playSignals struct {
	Limit        float64 `json:"limit"`
	WindowS      float64 `json:"windows"`
	PFixed       bool    `json:"pfixed"`
	PLog         bool    `json:"plog"`
	PFloor       bool    `json:"pfloor"`
	PExact       bool    `json:"pexact"`
	PBuckets     bool    `json:"pbuckets"`
	Buckets      float64 `json:"buckets"`
	PToken       bool    `json:"ptoken"`
	PGCRA        bool    `json:"pgcra"`
	Burst        float64 `json:"burst"`
	Cost         float64 `json:"cost"`
	Count        float64 `json:"count"`
	Pattern      string  `json:"pattern"`
	PatternCount float64 `json:"patterncount"`
	SpanS        float64 `json:"spans"`
	JumpS        float64 `json:"jumps"`
	Speed        string  `json:"speed"`
	NewClient    string  `json:"newclient"`
}

// whole checks that a signal is a whole number in [lo, hi].
func whole(field string, v float64, lo, hi int64) (int64, error) {
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, scenario.Errors{{Field: field, Reason: fmt.Sprintf("%s is not a whole number from %d to %d", strconv.FormatFloat(v, 'f', -1, 64), lo, hi)}}
	}
	return int64(v), nil
}

// millis turns seconds into whole milliseconds in [lo, hi].
func millis(field string, sec float64, lo, hi int64) (int64, error) {
	ms := math.Round(sec * 1000)
	if math.IsNaN(ms) || ms < float64(lo) || ms > float64(hi) {
		return 0, scenario.Errors{{Field: field, Reason: fmt.Sprintf("%s s is out of range (%s to %s)",
			strconv.FormatFloat(sec, 'f', -1, 64), scenario.FormatMs(lo), scenario.FormatMs(hi))}}
	}
	return int64(ms), nil
}

func (sig playSignals) settings() (play.Settings, error) {
	var errs scenario.Errors
	add := func(err error) {
		var fe scenario.Errors
		if errors.As(err, &fe) {
			errs = append(errs, fe...)
		}
	}
	limit, err := whole("limit", sig.Limit, 1, scenario.MaxLimit)
	add(err)
	window, err := millis("windowMs", sig.WindowS, 1, scenario.MaxWindowMs)
	add(err)
	st := play.Settings{Limit: limit, WindowMs: window}
	if sig.PFixed {
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.FixedWindow})
	}
	if sig.PLog {
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.SlidingLog})
	}
	if sig.PFloor {
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Floor})
	}
	if sig.PExact {
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Exact})
	}
	if sig.PBuckets {
		k, err := whole("buckets", sig.Buckets, 1, policies.MaxBuckets)
		add(err)
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.SlidingBuckets, Buckets: k})
	}
	burst := int64(0)
	if sig.PToken || sig.PGCRA {
		burst, err = whole("burst", sig.Burst, 0, scenario.MaxLimit)
		add(err)
	}
	if sig.PToken {
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.TokenBucket, Burst: burst})
	}
	if sig.PGCRA {
		st.Policies = append(st.Policies, scenario.PolicySpec{Name: policies.GCRA, Burst: burst})
	}
	if len(errs) > 0 {
		return st, errs
	}
	return st, nil
}

// action applies one action to a session. Its effect arrives on the
// session's stream; the response carries only the field errors (cleared on
// success) as Datastar events, with status 400 when the action was refused.
func (p *playground) action(w http.ResponseWriter, r *http.Request) {
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	var sig playSignals
	r.Body = http.MaxBytesReader(w, r.Body, maxSignalBytes)
	if err := datastar.ReadSignals(r, &sig); err != nil {
		http.Error(w, "malformed signals: want the page's signals as a JSON object", http.StatusBadRequest)
		return
	}
	err := p.apply(sess, chi.URLParam(r, "action"), sig, r)
	if errors.Is(err, errUnknownAction) {
		p.s.NotFound(w, r)
		return
	}
	errs := scenario.Errors(nil)
	if err != nil {
		errs = asErrors(err, "")
	}
	var clientSignal []byte
	if err == nil && strings.HasPrefix(r.URL.Path, "/play/"+sess.ID()+"/client") {
		clientSignal = []byte(`{"newclient": ""}`)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if errs != nil {
		// Datastar applies the events of a 400 response too: the message
		// lands next to the field, and direct API callers get a 4xx.
		w.Header().Set("X-Problem", truncate(errs.Error(), 300))
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusBadRequest)
	}
	sse := datastar.NewSSE(w, r)
	for _, slot := range templates.ErrorSlots {
		if err := MergeComponent(sse, templates.ErrorSlotView(slot, templates.SlotMessage(errs, slot))); err != nil {
			return
		}
	}
	if clientSignal != nil {
		_ = MergeSignals(sse, clientSignal, false)
	}
}

var errUnknownAction = errors.New("unknown action")

// maxSignalBytes bounds an action's body: the page's signals are a few
// hundred bytes.
const maxSignalBytes = 16 << 10

// truncate shortens s to at most n bytes (on a rune boundary), marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (p *playground) apply(sess *play.Session, action string, sig playSignals, r *http.Request) error {
	q := r.URL.Query()
	costAndThen := func(f func() error) error {
		cost, err := whole("cost", sig.Cost, 1, scenario.MaxCost)
		if err != nil {
			return err
		}
		if err := sess.SetCost(cost); err != nil {
			return err
		}
		return f()
	}
	isClient := strings.Contains(r.URL.Path, "/client/")
	switch {
	case isClient && action == "add":
		return sess.SelectClient(sig.NewClient)
	case isClient && action == "rename":
		return sess.RenameClient(sig.NewClient)
	case isClient:
		return errUnknownAction
	}
	switch action {
	case "fire":
		return costAndThen(func() error { return sess.Fire(1) })
	case "burst":
		return costAndThen(func() error {
			n, err := whole("count", sig.Count, 1, play.MaxBurst)
			if err != nil {
				return err
			}
			return sess.Fire(n)
		})
	case "pattern":
		return costAndThen(func() error {
			n, err := whole("patternCount", sig.PatternCount, 1, play.MaxPatternCount)
			if err != nil {
				return err
			}
			kind := play.PatternKind(sig.Pattern)
			span := int64(0)
			if kind != play.Straddle {
				if span, err = millis("span", sig.SpanS, 1, scenario.MaxWindowMs); err != nil {
					return err
				}
			}
			return sess.FirePattern(play.Pattern{Kind: kind, Count: n, SpanMs: span})
		})
	case "step":
		if q.Get("window") == "1" {
			return sess.StepWindow()
		}
		ms, err := strconv.ParseInt(q.Get("ms"), 10, 64)
		if err != nil {
			return scenario.Errors{{Field: "step", Reason: "want ?ms=<milliseconds> or ?window=1"}}
		}
		return sess.Step(ms)
	case "jump":
		at, err := millis("at", sig.JumpS, 0, play.MaxClock)
		if err != nil {
			return err
		}
		return sess.Jump(at)
	case "toggle":
		return sess.TogglePlay()
	case "play":
		return sess.Play()
	case "pause":
		return sess.Pause()
	case "speed":
		sp, err := play.ParseSpeed(sig.Speed)
		if err != nil {
			return scenario.Errors{{Field: "speed", Reason: "want one of 0.25×, 1×, 4×, 16×"}}
		}
		return sess.SetSpeed(sp)
	case "reset":
		return sess.Reset()
	case "settings":
		st, err := sig.settings()
		if err != nil {
			return err
		}
		return sess.Apply(st)
	case "client":
		// The page sends the position of the chosen client, never its
		// name: names are visitor text and stay out of expressions.
		i, err := strconv.Atoi(q.Get("i"))
		if err != nil {
			return scenario.Errors{{Field: "client", Reason: "want ?i=<position of the client>"}}
		}
		return sess.SelectClientAt(i)
	case "select":
		if d := q.Get("d"); d != "" {
			delta, err := strconv.Atoi(d)
			if err != nil {
				return scenario.Errors{{Field: "selected", Reason: "want ?d=1 or ?d=-1"}}
			}
			return sess.SelectStep(delta)
		}
		i, err := strconv.Atoi(q.Get("i"))
		if err != nil {
			return scenario.Errors{{Field: "selected", Reason: "want ?i=<request index>"}}
		}
		return sess.Select(i)
	}
	return errUnknownAction
}

// regions renders every region of the page the stream keeps up to date, by
// element id, in page order.
func regions(pp templates.PlayPage, r *http.Request) ([]region, error) {
	var out []region
	render := func(id string, c templ.Component) error {
		var buf bytes.Buffer
		if err := c.Render(r.Context(), &buf); err != nil {
			return err
		}
		out = append(out, region{id: id, html: buf.String()})
		return nil
	}
	v := pp.View
	if err := render("play-clock", templates.PlayClock(v)); err != nil {
		return nil, err
	}
	if err := render("play-summary", templates.PlaySummary(v)); err != nil {
		return nil, err
	}
	if err := render("play-clients", templates.PlayClients(v)); err != nil {
		return nil, err
	}
	// Lanes are the bulk of the work: render them side by side.
	laneHTML := make([]region, len(v.Lanes))
	laneErr := make([]error, len(v.Lanes))
	var wg sync.WaitGroup
	for i, l := range v.Lanes {
		wg.Go(func() {
			var buf bytes.Buffer
			laneErr[i] = templates.PlayLane(templates.Plot(v, l), pp.Base).Render(r.Context(), &buf)
			laneHTML[i] = region{id: l.ID, html: buf.String()}
		})
	}
	wg.Wait()
	if err := errors.Join(laneErr...); err != nil {
		return nil, err
	}
	out = append(out, laneHTML...)
	if err := render("play-live", templates.PlayLive(v)); err != nil {
		return nil, err
	}
	if err := render("play-explain", templates.PlayExplain(v)); err != nil {
		return nil, err
	}
	if err := render("play-share", templates.PlayShare(pp)); err != nil {
		return nil, err
	}
	return out, nil
}

type region struct{ id, html string }

// stream keeps one open page up to date: the full state at once (also after
// a reconnect), then the regions that changed after each action, at most
// every UpdateInterval; while the clock plays, it advances the clock.
func (p *playground) stream(w http.ResponseWriter, r *http.Request) {
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	changes, unsubscribe := sess.Subscribe()
	defer unsubscribe()
	sse, done := p.s.NewSSE(w, r)
	defer done()
	ctx := sse.Context()
	sent := map[string]string{}
	lanes := 0
	cache := &shareCache{}
	send := func() error {
		pp := p.pageDataCached(r, sess, cache)
		rs, err := regions(pp, r)
		if err != nil {
			return err
		}
		// Lanes that no longer exist (fewer policies) are removed; new ones
		// are appended after the last lane.
		for i := len(pp.View.Lanes); i < lanes; i++ {
			if err := RemoveFragments(sse, fmt.Sprintf("#lane-%d", i)); err != nil {
				return err
			}
			delete(sent, fmt.Sprintf("lane-%d", i))
		}
		for _, rg := range rs {
			if sent[rg.id] == rg.html {
				continue
			}
			var opts []FragmentOption
			if _, seen := sent[rg.id]; !seen && strings.HasPrefix(rg.id, "lane-") && rg.id != "lane-0" && lanes > 0 {
				prev := "lane-" + strconv.Itoa(atoiSuffix(rg.id)-1)
				opts = append(opts, WithSelector("#"+prev), WithMergeMode(MergeAfter))
			}
			if err := MergeFragments(sse, rg.html, opts...); err != nil {
				return err
			}
			sent[rg.id] = rg.html
		}
		lanes = len(pp.View.Lanes)
		return nil
	}
	// The first render of a new stream sends everything: after a reconnect
	// the page may hold stale regions.
	if err := send(); err != nil {
		p.s.Log().Error("play stream", "session", sess.ID(), slog.Any("error", err))
		return
	}
	ticker := time.NewTicker(UpdateInterval)
	defer ticker.Stop()
	pending := false
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
			pending = true
			if time.Since(last) < UpdateInterval {
				continue // the ticker sends it: at most ten updates a second
			}
		case now := <-ticker.C:
			p.store.Touch(sess)
			if sess.TickAt(now) {
				<-changes // our own tick's notice
				pending = true
			}
			if !pending {
				continue
			}
		}
		pending = false
		last = time.Now()
		if err := send(); err != nil {
			return
		}
	}
}

func atoiSuffix(id string) int {
	n, _ := strconv.Atoi(id[strings.LastIndexByte(id, '-')+1:])
	return n
}

// link redirects to the shared link of a session's scenario: the page points
// here when the link is too long to embed.
func (p *playground) link(w http.ResponseWriter, r *http.Request) {
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	http.Redirect(w, r, play.EncodeURL(sess.Scenario()), http.StatusSeeOther)
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

func (p *playground) scenarioJSON(w http.ResponseWriter, sc scenario.Scenario) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="scenario.json"`)
	_, err := io.WriteString(w, scenarioText(sc)+"\n")
	return err
}

func (p *playground) decisionsJSON(w http.ResponseWriter, sc scenario.Scenario) error {
	res, err := scenario.Run(sc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="decisions.json"`)
	return json.NewEncoder(w).Encode(res)
}

// decisionsCSV writes one row per request and policy.
func (p *playground) decisionsCSV(w http.ResponseWriter, sc scenario.Scenario) error {
	res, err := scenario.Run(sc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="decisions.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"request", "at_ms", "key", "cost", "policy", "allowed", "retry_after_ms", "estimate", "capacity"})
	for _, pr := range res.Results {
		for _, d := range pr.Decisions {
			retry := ""
			if ms, ok := d.RetryAfter(); ok {
				retry = strconv.FormatInt(ms, 10)
			}
			_ = cw.Write([]string{strconv.Itoa(d.Index + 1), strconv.FormatInt(d.At, 10), d.Key, strconv.FormatInt(d.Cost, 10),
				pr.Label, strconv.FormatBool(d.Allowed()), retry, d.Estimate.Reduced().String(), strconv.FormatInt(d.Detail.Capacity, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// linkDecisions serves the decisions of the scenario in ?s=, without a session.
func (p *playground) linkDecisions(asCSV bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sc, err := play.DecodeURL(r.URL.Query())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f := p.decisionsJSON
		if asCSV {
			f = p.decisionsCSV
		}
		if err := f(w, sc); err != nil {
			p.s.Fail(w, r, err)
		}
	}
}
