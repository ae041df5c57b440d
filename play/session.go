package play

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// MaxRequests caps the requests one session holds, after expanding counts.
const MaxRequests = 5000

// MaxBurst caps one burst; MaxClients caps the named clients of a session.
const (
	MaxBurst   = 1000
	MaxClients = 10
)

// ErrTooManyRequests is returned (wrapped in a scenario.Errors naming the
// field) when an action would take a session past MaxRequests.
var ErrTooManyRequests = errors.New("play: the session holds its maximum of requests")

// DefaultScenario is what a new playground opens with: the car park's
// settings (limit 5 per 30 s) and one lane for each of the seven policies,
// with no requests, so that a first visit sees every policy decide. (A
// scenario that names no lanes still gets scenario.DefaultPolicies.)
func DefaultScenario() scenario.Scenario {
	return scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{
		{Name: policies.FixedWindow},
		{Name: policies.SlidingLog},
		{Name: policies.SlidingCounter, Arithmetic: policies.Floor},
		{Name: policies.SlidingBuckets, Buckets: 6},
		{Name: policies.TokenBucket},
		{Name: policies.GCRA},
		{Name: policies.LeakyBucket},
	}}
}

// Session is one playground as data: a scenario, a clock and the inputs
// of the next request. It is a value: a store (Sessions) hands out copies,
// and the actions (Fire, Step, Apply and the rest) change the copy they are
// called on, which a store keeps only when they are called inside its
// Update. A copy is for one goroutine; copies share nothing a change can
// reach but the derived replay (see derived), which locks itself.
//
// The clock is stored, not ticked (see Clock): a copy reads it at its own
// wall instant (At), which the store sets to its time when it hands the copy
// out, so the actions on it fire and step at the time the clock shows then.
type Session struct {
	id string
	// control is the ControlToken, known only to the process that made
	// the session; controlHash is what a restored session checks with.
	control     string
	controlHash [sha256.Size]byte
	// owner is the client that opened the session (see Store.NewFor).
	owner    string
	lastUsed time.Time

	// sc's requests are sorted by time. A copy's list is clipped, so
	// that appending to it makes a new one: the requests a copy (or a
	// View) holds never change under it.
	sc       scenario.Scenario
	total    int64 // requests after expanding counts
	clock    Clock
	at       time.Time // the wall instant this copy reads its clock at
	client   string
	clients  []string
	cost     int64
	selected int // expanded index of the selected request, -1 for none
	zoom     Zoom
	patterns int64
	// version counts the changes a store kept (Sessions.Update bumps it);
	// rev those to the scenario itself.
	version uint64
	notice  string
	rev     uint64
	// edits counts changes to the scenario other than requests appended
	// at or after its last one: what a kept replay cannot follow.
	edits uint64
	// fullReplay makes every View replay from the first request, as
	// before replays were kept: for the benchmarks and the tests that
	// compare the two.
	fullReplay bool

	derived *derived
}

// derived is what a process derives from one session and keeps between its
// views: the replay of its scenario (see replayCache). It is not part of the
// session's data: copies of one session in one process share it, and a
// process that reads the session from elsewhere has its own. The replay it
// keeps carries its own key (the edits, client and selection it was made
// for), so a View of any version continues it only when it can.
type derived struct {
	// mu is held while a View replays: views of one session take turns
	// (they share one kept replay); actions do not wait for them.
	mu        sync.Mutex
	replays   *replayCache
	continued int // views that continued a kept replay, for the tests
}

// drop lets the kept replay go: the store calls it when the last watcher
// of the session leaves, since the replay only spares a watched session's
// updates.
func (d *derived) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.replays = nil
}

// NewSession returns a session holding sc with its clock paused at 0. sc
// must be valid (scenario.Validate); its requests are sorted by time.
func NewSession(id string, sc scenario.Scenario) (*Session, error) {
	s := &Session{id: id, control: rand.Text(), cost: 1, selected: -1, derived: &derived{}}
	s.controlHash = sha256.Sum256([]byte(s.control))
	s.clock.Speed = RealSpeed
	if err := s.load(sc); err != nil {
		return nil, err
	}
	return s, nil
}

// Copy returns a copy of s that shares nothing a change of either can
// reach: what a store hands out, and what Update's function changes.
func (s *Session) Copy() *Session {
	c := *s
	c.sc.Requests = slices.Clip(s.sc.Requests)
	c.sc.Policies = slices.Clone(s.sc.Policies)
	c.clients = slices.Clone(s.clients)
	return &c
}

// At returns a copy of s that reads its clock at wall: a stream re-renders a
// playing clock with it, computing the time instead of storing a tick.
func (s *Session) At(wall time.Time) *Session {
	c := s.Copy()
	c.at = wall
	return c
}

// Version counts the changes kept by the store (View.Version).
func (s *Session) Version() uint64 { return s.version }

// Owner is the client that opened the session.
func (s *Session) Owner() string { return s.owner }

// LastUsed is when the store last saw the session used.
func (s *Session) LastUsed() time.Time { return s.lastUsed }

// ShareDerived makes s use what this process derived from prev (its kept
// replay) when both are the same session: a store that decodes each
// version afresh (Restore) calls it, so that an update continues the last
// replay instead of starting over.
func (s *Session) ShareDerived(prev *Session) {
	if prev != nil && prev.id == s.id && prev.derived != nil {
		s.derived = prev.derived
	}
}

// ID is the session's unguessable identifier.
func (s *Session) ID() string { return s.id }

// Check reports whether a session can hold sc: it must be valid
// (scenario.Validate) and have at most MaxRequests requests after expanding
// counts. A scenario that passes loads; one that fails is refused with
// scenario.Errors naming the fields.
func Check(sc scenario.Scenario) error {
	_, err := checkedTotal(sc)
	return err
}

func checkedTotal(sc scenario.Scenario) (int64, error) {
	if err := sc.Validate(); err != nil {
		return 0, err
	}
	total := int64(0)
	for _, r := range sc.Requests {
		total += r.Count
	}
	if total > MaxRequests {
		return 0, scenario.Errors{{Field: "requests", Reason: fmt.Sprintf(
			"the playground holds at most %d requests per session and this scenario has %d; the simulate command and POST /api/simulate take larger ones",
			MaxRequests, total)}}
	}
	return total, nil
}

func (s *Session) load(sc scenario.Scenario) error {
	total, err := checkedTotal(sc)
	if err != nil {
		return err
	}
	sc.Requests = slices.Clone(sc.Requests)
	slices.SortStableFunc(sc.Requests, func(a, b scenario.Request) int { return cmp.Compare(a.At, b.At) })
	if len(sc.Policies) == 0 {
		sc.Policies = scenario.DefaultPolicies()
	}
	s.sc, s.total = sc, total
	s.rev++
	s.edits++
	s.clients = nil
	for _, r := range sc.Requests {
		if !slices.Contains(s.clients, r.KeyName()) {
			s.clients = append(s.clients, r.KeyName())
		}
	}
	if len(s.clients) == 0 {
		s.clients = []string{scenario.DefaultKey}
	}
	s.client = s.clients[0]
	s.selected = -1
	s.zoom = Zoom{} // a new scenario opens fitted to its activity
	return nil
}

func tooMany(field string, total, adding int64) error {
	return scenario.Errors{{Field: field, Reason: fmt.Sprintf(
		"the playground holds at most %d requests per session and this would make %d; reset, or download the decisions and start again",
		MaxRequests, total+adding)}}
}

// do runs one action on s. A failing action leaves s as it was (each
// checks before it changes anything); one that succeeds clears the notice.
func (s *Session) do(f func() error) error {
	if err := f(); err != nil {
		return err
	}
	s.notice = ""
	return nil
}

// insert adds requests at their times (after any already at the same
// instant), keeping the list sorted and the selection on its request. It
// writes only past the end of the list it was given, which no other copy or
// View sees, or into a list of its own.
func (s *Session) insert(reqs ...scenario.Request) error {
	var adding int64
	for _, r := range reqs {
		adding += r.Count
	}
	if s.total+adding > MaxRequests {
		return tooMany("count", s.total, adding)
	}
	for _, r := range reqs {
		i, _ := slices.BinarySearchFunc(s.sc.Requests, r.At+1, func(e scenario.Request, t int64) int { return cmp.Compare(e.At, t) })
		if s.selected >= 0 {
			// The selection is an expanded index: requests inserted
			// before the selected one move it along, so that it stays
			// on the same request.
			before := int64(0)
			for _, e := range s.sc.Requests[:i] {
				before += e.Count
			}
			if int64(s.selected) >= before {
				s.selected += int(r.Count)
			}
		}
		if i < len(s.sc.Requests) {
			s.edits++ // before the last request: every later decision may change
			// Copies and views may share the list (a store's Update
			// appends in place): shift a copy.
			s.sc.Requests = slices.Clip(s.sc.Requests)
		}
		s.sc.Requests = slices.Insert(s.sc.Requests, i, r)
	}
	s.total += adding
	s.rev++
	return nil
}

// Fire sends count requests at the clock's time from the selected client,
// each of the selected cost: one request, or a burst.
func (s *Session) Fire(count int64) error { return s.FireCost(0, count) }

// FireCost is Fire with the cost of these and later requests set first, in
// the same change: a page that sends its cost with every fire gets one
// update, not one for the cost and another for the requests. Cost 0 keeps
// the session's cost.
func (s *Session) FireCost(cost, count int64) error {
	if count < 1 || count > MaxBurst {
		return scenario.Errors{{Field: "count", Reason: fmt.Sprintf("%d is out of range (a burst is 1 to %d requests)", count, MaxBurst)}}
	}
	if err := checkCost(cost, true); err != nil {
		return err
	}
	return s.do(func() error {
		if err := s.insert(scenario.Request{At: s.Now(), Key: s.keyField(), Cost: cmp.Or(cost, s.cost), Count: count}); err != nil {
			return err
		}
		s.cost = cmp.Or(cost, s.cost)
		return nil
	})
}

// checkCost checks a request cost; zero passes when it means "the
// session's cost".
func checkCost(cost int64, zeroKeeps bool) error {
	if (cost == 0 && zeroKeeps) || (cost >= 1 && cost <= scenario.MaxCost) {
		return nil
	}
	return scenario.Errors{{Field: "cost", Reason: fmt.Sprintf("%d is out of range (a whole number from 1 to %d)", cost, scenario.MaxCost)}}
}

// keyField is the Key a new request carries: empty for the default client,
// so that scenarios written without keys stay that way.
func (s *Session) keyField() string {
	if s.client == scenario.DefaultKey {
		return ""
	}
	return s.client
}

// Step moves the clock forward by ms.
func (s *Session) Step(ms int64) error {
	if ms < 1 || ms > scenario.MaxWindowMs {
		return scenario.Errors{{Field: "step", Reason: fmt.Sprintf("%d ms is out of range (1 ms to %d ms)", ms, int64(scenario.MaxWindowMs))}}
	}
	return s.do(func() error { s.clock.Step(ms, s.at); return nil })
}

// StepWindow moves the clock forward by the scenario's window.
func (s *Session) StepWindow() error {
	return s.do(func() error { s.clock.Step(s.sc.WindowMs, s.at); return nil })
}

// Jump sets the clock to at (ms), earlier or later than now.
func (s *Session) Jump(at int64) error {
	if at < 0 || at > MaxClock {
		return scenario.Errors{{Field: "at", Reason: fmt.Sprintf("%d ms is out of range (0 to %d ms)", at, MaxClock)}}
	}
	return s.do(func() error { s.clock.Jump(at, s.at); return nil })
}

// Play starts the clock; Pause stops it.
func (s *Session) Play() error {
	return s.do(func() error { s.clock.SetPlaying(true, s.at); return nil })
}
func (s *Session) Pause() error {
	return s.do(func() error { s.clock.SetPlaying(false, s.at); return nil })
}

// TogglePlay starts a paused clock or pauses a running one.
func (s *Session) TogglePlay() error {
	return s.do(func() error { s.clock.SetPlaying(!s.Playing(), s.at); return nil })
}

// SetSpeed chooses how fast a playing clock runs.
func (s *Session) SetSpeed(sp Speed) error {
	if !slices.Contains(Speeds, sp) {
		return scenario.Errors{{Field: "speed", Reason: "want one of 0.25, 1, 4, 16"}}
	}
	return s.do(func() error { s.clock.SetSpeed(sp, s.at); return nil })
}

// Reset clears the requests, the selection and the clock; settings and
// clients stay.
func (s *Session) Reset() error {
	return s.do(func() error {
		s.sc.Requests = nil
		s.rev++
		s.edits++
		s.total = 0
		s.clock = Clock{Speed: s.clock.Speed, Wall: s.at}
		s.selected = -1
		s.patterns = 0
		return nil
	})
}

// Settings are the shared settings and the lanes.
type Settings struct {
	Limit    int64
	WindowMs int64
	Policies []scenario.PolicySpec
}

// Apply replaces the settings and the lanes (the settings form uses
// ApplyForm, which keeps the lanes it does not mention). Every request is replayed under the new
// ones; invalid settings return scenario.Errors naming the fields
// ("limit", "windowMs", "policies[i].…") and change nothing.
func (s *Session) Apply(st Settings) error {
	return s.do(func() error { return s.apply(st) })
}

// apply replaces the settings and the lanes, for Apply and ApplyForm.
func (s *Session) apply(st Settings) error {
	if len(st.Policies) == 0 {
		return scenario.Errors{{Field: "policies", Reason: "choose at least one policy"}}
	}
	next := s.sc
	next.Limit, next.WindowMs, next.Policies = st.Limit, st.WindowMs, st.Policies
	if err := next.Validate(); err != nil {
		return err
	}
	s.sc = next
	s.rev++
	s.edits++
	return nil
}

// SetCost sets the cost of the next requests.
func (s *Session) SetCost(cost int64) error {
	if err := checkCost(cost, false); err != nil {
		return err
	}
	return s.do(func() error { s.cost = cost; return nil })
}

// ValidClientName checks a client name: 1 to scenario.MaxKeyLen bytes of
// printable text.
func ValidClientName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return scenario.Errors{{Field: "client", Reason: "give the client a name"}}
	case len(name) > scenario.MaxKeyLen:
		return scenario.Errors{{Field: "client", Reason: fmt.Sprintf("longer than %d bytes", scenario.MaxKeyLen)}}
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return scenario.Errors{{Field: "client", Reason: "control characters are not allowed"}}
	}
	return nil
}

// SelectClient makes name the client that fires and that the lanes draw,
// adding it when it is new.
func (s *Session) SelectClient(name string) error {
	name = strings.TrimSpace(name)
	if err := ValidClientName(name); err != nil {
		return err
	}
	return s.do(func() error {
		if !slices.Contains(s.clients, name) {
			if len(s.clients) >= MaxClients {
				return scenario.Errors{{Field: "client", Reason: fmt.Sprintf("at most %d clients", MaxClients)}}
			}
			if err := s.checkKey(name); err != nil {
				return err
			}
			s.clients = append(s.clients, name)
		}
		s.client = name
		return nil
	})
}

// SelectClientAt makes the i-th client (in the order they were added) the
// one that fires and that the lanes draw.
func (s *Session) SelectClientAt(i int) error {
	return s.do(func() error {
		if i < 0 || i >= len(s.clients) {
			return scenario.Errors{{Field: "client", Reason: fmt.Sprintf("there is no client %d", i+1)}}
		}
		s.client = s.clients[i]
		return nil
	})
}

// checkKey rejects a name whose hash collides with another client's.
func (s *Session) checkKey(name string) error {
	for _, c := range s.clients {
		if c != name && scenario.KeyOf(c) == scenario.KeyOf(name) {
			return scenario.Errors{{Field: "client", Reason: fmt.Sprintf("%q and %q hash to the same key; choose another name", c, name)}}
		}
	}
	return nil
}

// RenameClient renames the selected client, and its requests with it.
func (s *Session) RenameClient(name string) error {
	name = strings.TrimSpace(name)
	if err := ValidClientName(name); err != nil {
		return err
	}
	return s.do(func() error {
		if name == s.client {
			return nil
		}
		if slices.Contains(s.clients, name) {
			return scenario.Errors{{Field: "client", Reason: fmt.Sprintf("there is already a client called %q", name)}}
		}
		if err := s.checkKey(name); err != nil {
			return err
		}
		old := s.client
		key := name
		if name == scenario.DefaultKey {
			key = ""
		}
		s.sc.Requests = slices.Clone(s.sc.Requests) // copies and views hold the old list
		for i := range s.sc.Requests {
			if s.sc.Requests[i].KeyName() == old {
				s.sc.Requests[i].Key = key
			}
		}
		s.clients = slices.Clone(s.clients)
		s.clients[slices.Index(s.clients, old)] = name
		s.rev++
		s.edits++
		s.client = name
		return nil
	})
}

// Select chooses the request (its index in the expanded list) whose
// decisions are explained; -1 clears the selection.
func (s *Session) Select(index int) error {
	return s.do(func() error {
		if index < -1 || int64(index) >= s.total {
			return scenario.Errors{{Field: "selected", Reason: fmt.Sprintf("there is no request %d", index+1)}}
		}
		s.selected = index
		return nil
	})
}

// SelectStep moves the selection by delta requests (wrapping inside the list).
func (s *Session) SelectStep(delta int) error {
	return s.do(func() error {
		if s.total == 0 {
			return scenario.Errors{{Field: "selected", Reason: "there are no requests to select yet"}}
		}
		n := int(s.total)
		if s.selected < 0 {
			if delta > 0 {
				s.selected = 0
			} else {
				s.selected = n - 1
			}
			return nil
		}
		s.selected = ((s.selected+delta)%n + n) % n
		return nil
	})
}

// Load replaces the scenario (a pasted, uploaded or linked one) and moves the
// clock to its last request.
func (s *Session) Load(sc scenario.Scenario) error {
	return s.do(func() error {
		// load checks the scenario before it changes anything, so a
		// refused scenario leaves the session as it was.
		if err := s.load(sc); err != nil {
			return err
		}
		at := int64(0)
		if n := len(s.sc.Requests); n > 0 {
			at = s.sc.Requests[n-1].At
		}
		s.clock = Clock{Now: at, Speed: s.clock.Speed, Wall: s.at}
		return nil
	})
}

// Scenario returns a copy of the session's scenario: exactly what
// "copy scenario", a shared link and POST /api/simulate use.
func (s *Session) Scenario() scenario.Scenario {
	sc := s.sc
	sc.Requests = slices.Clone(sc.Requests)
	sc.Policies = slices.Clone(sc.Policies)
	return sc
}

// Clock is the clock as this copy reads it (see At).
func (s *Session) Clock() Clock { return s.clock.At(s.at) }

// Now returns the clock's time in ms.
func (s *Session) Now() int64 { return s.Clock().Now }

// ScenarioRev counts changes to the scenario itself (requests, settings,
// lanes): equal before and after an action, the action left it alone.
func (s *Session) ScenarioRev() uint64 { return s.rev }

// Playing reports whether the clock runs.
func (s *Session) Playing() bool { return s.Clock().Playing }

// keyOf is the client's integer key for the policies.
func keyOf(name string) policies.Key { return scenario.KeyOf(name) }
