package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/play/pages"
)

// Signals are the page's signals as the browser sends them (camelCase:
// the page binds them through kebab-case attributes such as
// data-bind-window-seconds, which Datastar turns into windowSeconds).
// A number field's signal arrives as the field's text (see NumberField);
// each action validates the ones it uses.
type Signals struct {
	Limit          NumberField `json:"limit"`
	WindowSeconds  NumberField `json:"windowSeconds"`
	Cost           NumberField `json:"cost"`
	BurstCount     NumberField `json:"burstCount"`
	Pattern        string      `json:"pattern"`
	PatternCount   NumberField `json:"patternCount"`
	PatternSeconds NumberField `json:"patternSeconds"`
	JumpSeconds    NumberField `json:"jumpSeconds"`
	Speed          string      `json:"speed"`
	ClientName     string      `json:"clientName"`
	// The settings form's boxes and number fields, named by play.Kinds
	// and play.Fields and read by ReadSignals: Use by a kind's signal
	// (useSlidingLog), Numbers by an option's name (buckets, burst), and
	// Shown by the option's name with what the form last showed for it
	// (signal bucketsShown): a field the visitor left as shown does not
	// override the lanes' own. Absent (a caller other than the page), the
	// fields apply.
	Use     map[string]bool        `json:"-"`
	Numbers map[string]NumberField `json:"-"`
	Shown   map[string]*float64    `json:"-"`
	// Servers are each lane's server fields, by the lane's index
	// (readServers).
	Servers map[int]serverSignals `json:"-"`
}

// ReadSignals reads a request's signals into v, a Signals or a struct
// that embeds one (pg, the embedded one), then the settings form's into pg.
// Those are named by the policies registry rather than by struct fields, so
// they are picked from the same JSON by name. (A json.Unmarshaler on
// Signals would not do: a struct embedding it would inherit the
// method, and its own fields would go unread.)
func ReadSignals(r *http.Request, v any, pg *Signals) error {
	var raw json.RawMessage
	if err := datastar.ReadSignals(r, &raw); err != nil {
		return err
	}
	if len(raw) == 0 { // a GET without signals
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	return pg.readForm(raw)
}

// readForm reads the settings form's signals from the page's signals.
func (sig *Signals) readForm(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	sig.Use, sig.Numbers, sig.Shown = map[string]bool{}, map[string]NumberField{}, map[string]*float64{}
	for _, k := range play.Kinds() {
		if v, ok := raw[k.Signal()]; ok {
			var on bool
			if err := json.Unmarshal(v, &on); err != nil {
				return fmt.Errorf("%s: %w", k.Signal(), err)
			}
			sig.Use[k.Signal()] = on
		}
	}
	for _, f := range play.Fields() {
		name := f.Option.Name
		if v, ok := raw[name]; ok {
			var n NumberField
			if err := json.Unmarshal(v, &n); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			sig.Numbers[name] = n
		}
		if v, ok := raw[name+"Shown"]; ok {
			var shown *float64
			if err := json.Unmarshal(v, &shown); err != nil {
				return fmt.Errorf("%sShown: %w", name, err)
			}
			sig.Shown[name] = shown
		}
	}
	var err error
	sig.Servers, err = readServers(raw)
	return err
}

// NumberField is the signal of a number field. The page declares these
// signals as text, because Datastar turns an emptied field bound to a
// numeric signal into 0 at once: an empty "Jump to" moved the clock to 0 s.
// As text, empty stays empty and is refused for what it is. A JSON number
// (an API caller, a page from before) is read as well.
type NumberField struct {
	value float64
	text  string // as sent, trimmed
	set   bool   // a number was given
}

// decimal is what a number field's text may be: what an <input
// type="number"> sends, without the Infinity, NaN or hex ParseFloat takes.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

func (n *NumberField) UnmarshalJSON(data []byte) error {
	*n = NumberField{}
	if string(data) == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		if err := json.Unmarshal(data, &n.text); err != nil {
			return err
		}
		n.text = strings.TrimSpace(n.text)
		if !decimal.MatchString(n.text) {
			return nil // empty, or not a number: the action says which
		}
		n.value, _ = strconv.ParseFloat(n.text, 64) // beyond float64 is ±Inf, out of every range
		n.set = true
		return nil
	}
	if err := json.Unmarshal(data, &n.value); err != nil {
		return err
	}
	n.set = true
	return nil
}

// number is the field's value, or the error for an empty field or text
// that is no number; want says what to give.
func (n NumberField) number(field, want string) (float64, error) {
	switch {
	case n.set:
		return n.value, nil
	case n.text == "":
		return 0, scenario.Errors{{Field: field, Reason: "enter " + want}}
	}
	return 0, scenario.Errors{{Field: field, Reason: fmt.Sprintf("“%s” is not a number: give %s", web.Truncate(n.text, 40), want)}}
}

// shown is the field's number as a message repeats it: as typed when it
// came as text ("1e400", not the +Inf it reads as), else typed(v).
func (n NumberField) shown(v float64) string {
	if n.text != "" {
		return web.Truncate(n.text, 40)
	}
	return typed(v)
}

// Whole checks that a number field holds a whole number in [lo, hi].
func Whole(field string, n NumberField, lo, hi int64) (int64, error) {
	v, err := n.number(field, fmt.Sprintf("a whole number from %d to %d", lo, hi))
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, scenario.Errors{{Field: field, Reason: fmt.Sprintf("%s is not a whole number from %d to %d", n.shown(v), lo, hi)}}
	}
	return int64(v), nil
}

// typed writes a number as the visitor typed it, short even when huge
// (1e+300, not three hundred digits).
func typed(v float64) string {
	if math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// span writes a bound in seconds, with days or years beside a bound too
// long to picture in seconds: "31622400 s, about 1 year".
func span(ms int64) string {
	const day = 24 * 3600 * 1000
	s := scenario.FormatMs(ms)
	switch {
	case ms >= 365*day:
		return fmt.Sprintf("%s, about %d year%s", s, (ms+day*365/2)/(365*day), plural((ms+day*365/2)/(365*day)))
	case ms >= 2*day:
		return fmt.Sprintf("%s, about %d days", s, (ms+day/2)/day)
	}
	return s
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// millis turns a field's seconds into whole milliseconds in [lo, hi].
func millis(field string, n NumberField, lo, hi int64) (int64, error) {
	sec, err := n.number(field, fmt.Sprintf("a time in seconds, from %s to %s", scenario.FormatMs(lo), span(hi)))
	if err != nil {
		return 0, err
	}
	ms := math.Round(sec * 1000)
	if math.IsNaN(ms) || ms < float64(lo) || ms > float64(hi) {
		return 0, scenario.Errors{{Field: field, Reason: fmt.Sprintf("%s s is out of range: give from %s to %s",
			n.shown(sec), scenario.FormatMs(lo), span(hi))}}
	}
	return int64(ms), nil
}

// settings reads the settings form (see play.FormRule for what applying
// it does to the lanes).
func (sig Signals) settings() (play.Form, error) {
	var errs scenario.Errors
	add := func(err error) {
		var fe scenario.Errors
		if errors.As(err, &fe) {
			errs = append(errs, fe...)
		}
	}
	limit, err := Whole("limit", sig.Limit, 1, scenario.MaxLimit)
	add(err)
	window, err := millis("windowMs", sig.WindowSeconds, 1, scenario.MaxWindowMs)
	add(err)
	f := play.Form{Limit: limit, WindowMs: window}
	for _, k := range play.Kinds() {
		if sig.Use[k.Signal()] {
			f.Checked = append(f.Checked, k)
		}
	}
	for _, fld := range play.Fields() {
		if !fld.Sends(f.Checked) {
			continue
		}
		name := fld.Option.Name
		v, err := Whole(name, sig.Numbers[name], fld.Option.Min, fld.Max)
		add(err)
		shown := sig.Shown[name]
		f.SetNumber(fld.Option, v, shown == nil || *shown != sig.Numbers[name].value)
	}
	if len(errs) > 0 {
		return f, errs
	}
	return f, nil
}

// Action is one playground action: what it reads from the signals and
// the query, and which session method it calls. reply, when set, gives the
// signals the page merges after the action succeeded.
type Action struct {
	path  string
	run   func(sess *play.Session, sig Signals, q url.Values) error
	reply func(sess *play.Session, sig Signals) []byte
	// also renders a region of the page the stream does not keep (it is
	// not on every page, see pages.PlayServers) as the action left it;
	// nil when it has none for this page.
	also func(sess *play.Session, sig Signals) templ.Component
}

// Path is the action's route under /play/{id}/, and the label a room's
// undo names it by.
func (a Action) Path() string { return a.path }

// Run applies the action to sess, as the store's Update runs it.
func (a Action) Run(sess *play.Session, sig Signals, q url.Values) error { return a.run(sess, sig, q) }

// Actions are the playground's actions, for a feature that drives a
// session with them (a room's presenter).
func Actions() []Action { return actions }

// An ActionObserver is told of every action taken on the playground's own
// routes (a room keeps an undo checkpoint of a session it shows).
type ActionObserver interface {
	// BeforeAction is called before the action labelled label runs on
	// sess. What it returns, when not nil, is called once the action
	// succeeded, with the session as the action left it.
	BeforeAction(ctx context.Context, sess *play.Session, label string) (after func(changed *play.Session))
}

// actions are the routes under /play/{id}/, one per action.
var actions = []Action{
	{path: "fire", run: fire},
	{path: "burst", run: burst},
	{path: "pattern", run: firePattern},
	{path: "step", run: step},
	{path: "jump", run: jump},
	{path: "toggle", run: togglePlay},
	{path: "play", run: startClock},
	{path: "pause", run: pauseClock},
	{path: "speed", run: speed},
	{path: "reset", run: reset},
	// What the form now stands for: a k or burst left as it is next
	// time does not override the lanes' own.
	{path: "settings", run: applySettings, reply: shownSettings, also: shownServers},
	{path: "client", run: chooseClient},
	{path: "client/add", run: addClient, reply: clearNewClient},
	{path: "client/rename", run: renameClient, reply: clearNewClient},
	{path: "select", run: selectRequest},
	{path: "view", run: view},
}

// A page sends server signals only when it holds the servers' fields
// (pages.PlayServers): those fields and signals then follow the lanes.
func shownSettings(sess *play.Session, sig Signals) []byte {
	return pages.ShownSignals(sess.Scenario(), len(sig.Servers) > 0)
}

func shownServers(sess *play.Session, sig Signals) templ.Component {
	if len(sig.Servers) == 0 {
		return nil
	}
	return pages.PlayServerFields(sess.View(), true)
}

func clearNewClient(*play.Session, Signals) []byte { return []byte(`{"clientName": ""}`) }

// action serves one action. Its effect arrives on the session's stream; the
// response carries only the field errors (cleared on success) as Datastar
// events, with status 400 when the action was refused.
func (p *playground) action(a Action) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok := p.session(w, r)
		if !ok {
			return
		}
		if !Controls(r, sess) {
			RefuseControl(w, r)
			return
		}
		var sig Signals
		r.Body = http.MaxBytesReader(w, r.Body, MaxSignalBytes)
		if err := ReadSignals(r, &sig, &sig); err != nil {
			http.Error(w, "malformed signals: want the page's signals as a JSON object", http.StatusBadRequest)
			return
		}
		var afters []func(*play.Session)
		for _, o := range p.observers {
			if after := o.BeforeAction(r.Context(), sess, a.path); after != nil {
				afters = append(afters, after)
			}
		}
		var errs scenario.Errors
		var reply []byte
		var also templ.Component
		q := r.URL.Query()
		// The action runs inside the store's Update, on the session as
		// stored: it depends on nothing else, so a store may run it again.
		changed, err := p.store.Update(r.Context(), sess.ID(), func(s *play.Session) error { return a.run(s, sig, q) })
		if errors.Is(err, play.ErrNotFound) {
			p.sessionEnded(w, r)
			return
		}
		if web.StoreUnreachable(err) {
			p.s.StoreUnreachablePage(w, r)
			return
		}
		if err != nil {
			errs = asErrors(err, "")
		} else {
			for _, after := range afters {
				after(changed)
			}
			if a.reply != nil {
				reply = a.reply(changed, sig)
			}
			if a.also != nil {
				also = a.also(changed, sig)
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if errs != nil {
			// Datastar applies the events of a 400 response too: the
			// message lands next to the field, and direct API callers
			// get a 4xx.
			w.Header().Set("X-Problem", web.Truncate(errs.Error(), 300))
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusBadRequest)
		}
		sse := datastar.NewSSE(w, r)
		for _, slot := range pages.ErrorSlots {
			if err := web.MergeComponent(sse, pages.ErrorSlotView(slot, pages.SlotMessage(errs, slot))); err != nil {
				return
			}
		}
		if reply != nil {
			if err := web.MergeSignals(sse, reply, false); err != nil {
				return
			}
		}
		if also != nil {
			_ = web.MergeComponent(sse, also)
		}
	}
}

// MaxSignalBytes bounds an action's body: the page's signals are a few
// hundred bytes.
const MaxSignalBytes = 16 << 10

// cost reads the cost the page sends with every fire. The session takes it
// in the same change as the requests, so a fire is one stream update.
func cost(sig Signals) (int64, error) {
	return Whole("cost", sig.Cost, 1, scenario.MaxCost)
}

func fire(sess *play.Session, sig Signals, _ url.Values) error {
	c, err := cost(sig)
	if err != nil {
		return err
	}
	return sess.FireCost(c, 1)
}

func burst(sess *play.Session, sig Signals, _ url.Values) error {
	c, err := cost(sig)
	if err != nil {
		return err
	}
	n, err := Whole("count", sig.BurstCount, 1, play.MaxBurst)
	if err != nil {
		return err
	}
	return sess.FireCost(c, n)
}

func firePattern(sess *play.Session, sig Signals, _ url.Values) error {
	c, err := cost(sig)
	if err != nil {
		return err
	}
	n, err := Whole("patternCount", sig.PatternCount, 1, play.MaxPatternCount)
	if err != nil {
		return err
	}
	kind := play.PatternKind(sig.Pattern)
	span := int64(0)
	if kind != play.Straddle {
		if span, err = millis("span", sig.PatternSeconds, 1, scenario.MaxWindowMs); err != nil {
			return err
		}
	}
	return sess.FirePattern(play.Pattern{Kind: kind, Count: n, SpanMs: span, Cost: c})
}

// step moves the clock by ?ms= milliseconds, or by a window with ?window=1.
func step(sess *play.Session, _ Signals, q url.Values) error {
	if q.Get("window") == "1" {
		return sess.StepWindow()
	}
	ms, err := strconv.ParseInt(q.Get("ms"), 10, 64)
	if err != nil {
		return scenario.Errors{{Field: "step", Reason: "want ?ms=<milliseconds> or ?window=1"}}
	}
	return sess.Step(ms)
}

func jump(sess *play.Session, sig Signals, _ url.Values) error {
	at, err := millis("at", sig.JumpSeconds, 0, play.MaxClock)
	if err != nil {
		return err
	}
	return sess.Jump(at)
}

func togglePlay(sess *play.Session, _ Signals, _ url.Values) error { return sess.TogglePlay() }
func startClock(sess *play.Session, _ Signals, _ url.Values) error { return sess.Play() }
func pauseClock(sess *play.Session, _ Signals, _ url.Values) error { return sess.Pause() }
func reset(sess *play.Session, _ Signals, _ url.Values) error      { return sess.Reset() }

func speed(sess *play.Session, sig Signals, _ url.Values) error {
	sp, err := play.ParseSpeed(sig.Speed)
	if err != nil {
		return scenario.Errors{{Field: "speed", Reason: "want one of 0.25×, 1×, 4×, 16×"}}
	}
	return sess.SetSpeed(sp)
}

func applySettings(sess *play.Session, sig Signals, _ url.Values) error {
	f, err := sig.settings()
	servers, serr := sig.servers(sess.Scenario())
	if errs := appendErrors(appendErrors(nil, err), serr); len(errs) > 0 {
		return errs
	}
	f.Servers = servers
	return sess.ApplyForm(f)
}

func addClient(sess *play.Session, sig Signals, _ url.Values) error {
	return sess.SelectClient(sig.ClientName)
}

func renameClient(sess *play.Session, sig Signals, _ url.Values) error {
	return sess.RenameClient(sig.ClientName)
}

// chooseClient selects the client at ?i=. The page sends the position of
// the chosen client, never its name: names are visitor text and stay out of
// expressions.
func chooseClient(sess *play.Session, _ Signals, q url.Values) error {
	i, err := strconv.Atoi(q.Get("i"))
	if err != nil {
		return scenario.Errors{{Field: "client", Reason: "want ?i=<position of the client>"}}
	}
	return sess.SelectClientAt(i)
}

// selectRequest selects request ?i=, or moves the selection by ?d=.
func selectRequest(sess *play.Session, _ Signals, q url.Values) error {
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
