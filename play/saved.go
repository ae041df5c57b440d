package play

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// SavedFormat is the layout of Saved that this code writes and reads.
// Restore refuses any other, so that a store shared by servers of different
// versions fails loudly rather than misreading a session.
const SavedFormat = 2

// MaxSavedBytes bounds the JSON encoding (encoding/json, as it escapes by
// default) of any Saved a session can produce: MaxRequests request entries
// of at most some 460 bytes each (the longest key, every character escaped,
// the latest time, the largest cost, a probe), scenario.MaxKeys client names
// of scenario.MaxKeyLen bytes, scenario.MaxPolicies lanes and an owner of
// maxOwnerLen. TestSavedSizeBound builds that worst case and measures it;
// a session made from the default scenario is under 1 KB.
const MaxSavedBytes = 2_400_000

// maxOwnerLen bounds Saved.Owner: an IPv6 address with a zone is well
// under it.
const maxOwnerLen = 128

// maxIDLen bounds Saved.ID; ids this package makes are 22 characters.
const maxIDLen = 64

// Saved is everything that defines a session and nothing derived from it,
// as plain JSON: what a store that outlives the process or spans several
// keeps, and Restore turns back into a Session that shows the same View and
// takes the next action the same way. Left out, because a restored session
// rebuilds them: the kept replay (the first View replays in full), the
// watchers (each process has its own streams), the wall-clock instant of the
// last tick (a playing clock starts counting again at the first tick after
// it is restored) and the ControlToken itself (only its hash is kept).
//
// Size: at most MaxSavedBytes once encoded, since a session holds at most
// MaxRequests requests, scenario.MaxKeys clients and scenario.MaxPolicies
// lanes.
type Saved struct {
	Format int    `json:"format"`
	ID     string `json:"id"`
	// ControlHash is the SHA-256 of the session's ControlToken.
	ControlHash []byte `json:"controlHash"`
	// Owner is the client (network address) that opened the session,
	// which the per-client cap counts against.
	Owner    string    `json:"owner"`
	LastUsed time.Time `json:"lastUsed"`
	// Version counts the session's changes (View.Version); ScenarioRev
	// those of its scenario (View.ScenarioRev).
	Version     uint64 `json:"version"`
	ScenarioRev uint64 `json:"scenarioRev"`
	// Edits counts the changes to the scenario a kept replay cannot
	// follow (anything but requests appended at its end).
	Edits    uint64            `json:"edits"`
	Scenario scenario.Scenario `json:"scenario"`
	// Clients are the client names in the order they were added; Client
	// is the one that fires and that the lanes draw.
	Clients []string `json:"clients"`
	Client  string   `json:"client"`
	Cost    int64    `json:"cost"`
	// Selected is the expanded index of the explained request, -1 for none.
	Selected int `json:"selected"`
	// Patterns counts the patterns fired since the last reset: it seeds
	// the next one.
	Patterns int64      `json:"patterns"`
	Clock    SavedClock `json:"clock"`
	Notice   string     `json:"notice,omitempty"`
	// Zoom is the span the lanes show (view state); absent, they fit the
	// activity.
	Zoom Zoom `json:"zoom,omitzero"`
}

// SavedClock is a Clock as Saved holds it: the time it read at a wall
// instant, and how fast it runs from there.
type SavedClock struct {
	NowMs   int64     `json:"nowMs"`
	Playing bool      `json:"playing"`
	Speed   Speed     `json:"speed"`
	Wall    time.Time `json:"wall"`
}

// Saved returns what defines the session now (see Saved). The copy shares
// nothing with the session.
func (s *Session) Saved() Saved {
	sc := s.sc
	sc.Requests = slices.Clone(sc.Requests)
	sc.Policies = slices.Clone(sc.Policies)
	return Saved{
		Format: SavedFormat, ID: s.id, ControlHash: slices.Clone(s.controlHash[:]), Owner: s.owner,
		LastUsed: s.lastUsed, Version: s.version, ScenarioRev: s.rev, Edits: s.edits, Scenario: sc,
		Clients: slices.Clone(s.clients), Client: s.client, Cost: s.cost, Selected: s.selected,
		Patterns: s.patterns, Notice: s.notice, Zoom: s.zoom,
		Clock: SavedClock{NowMs: s.clock.Now, Playing: s.clock.Playing, Speed: s.clock.Speed, Wall: s.clock.Wall},
	}
}

// Restore rebuilds the session sv describes. It checks sv as it checks any
// input, since a store may hand back what another server (or a person)
// wrote: a Saved no session could have produced is refused with
// scenario.Errors naming the fields, never half loaded.
func Restore(sv Saved) (*Session, error) {
	var errs scenario.Errors
	add := func(field, format string, args ...any) {
		errs = append(errs, scenario.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	if sv.Format != SavedFormat {
		// Nothing else can be read with confidence.
		return nil, scenario.Errors{{Field: "format", Reason: fmt.Sprintf("%d is not a layout this server reads (it reads %d)", sv.Format, SavedFormat)}}
	}
	if sv.ID == "" || len(sv.ID) > maxIDLen {
		add("id", "want 1 to %d bytes, got %d", maxIDLen, len(sv.ID))
	}
	if len(sv.ControlHash) != sha256.Size {
		add("controlHash", "want %d bytes (a SHA-256), got %d", sha256.Size, len(sv.ControlHash))
	}
	if len(sv.Owner) > maxOwnerLen {
		add("owner", "longer than %d bytes", maxOwnerLen)
	}
	total, err := checkedTotal(sv.Scenario)
	var scErrs scenario.Errors
	if errors.As(err, &scErrs) {
		for _, e := range scErrs {
			add("scenario."+e.Field, "%s", e.Reason)
		}
	} else if err != nil {
		add("scenario", "%v", err)
	} else if len(sv.Scenario.Policies) == 0 {
		add("scenario.policies", "a session always has at least one lane")
	}
	checkSavedClients(sv, add)
	if err := checkCost(sv.Cost, false); err != nil {
		add("cost", "%d is out of range (a whole number from 1 to %d)", sv.Cost, scenario.MaxCost)
	}
	if sv.Selected < -1 || int64(sv.Selected) >= total {
		add("selected", "%d is not -1 or a request index below %d", sv.Selected, total)
	}
	if sv.Patterns < 0 {
		add("patterns", "%d is negative", sv.Patterns)
	}
	c := sv.Clock
	if c.NowMs < 0 || c.NowMs > MaxClock {
		add("clock.nowMs", "%d is out of range (0 to %d ms)", c.NowMs, MaxClock)
	}
	if !slices.Contains(Speeds, c.Speed) {
		add("clock.speed", "%d is not one of the speeds %v", c.Speed, Speeds)
	}
	if err := sv.Zoom.check(); err != nil {
		add("zoom", "%v", err)
	}
	if errs != nil {
		return nil, errs
	}
	s := &Session{zoom: sv.Zoom,
		id: sv.ID, owner: sv.Owner, cost: sv.Cost, selected: sv.Selected, patterns: sv.Patterns,
		version: sv.Version, notice: sv.Notice, lastUsed: sv.LastUsed, derived: &derived{},
		sc: sv.Scenario, total: total, clients: slices.Clone(sv.Clients), client: sv.Client,
		clock: Clock{Now: c.NowMs, Playing: c.Playing && c.NowMs < MaxClock, Speed: c.Speed, Wall: c.Wall},
		rev:   sv.ScenarioRev, edits: sv.Edits,
	}
	copy(s.controlHash[:], sv.ControlHash)
	s.sc.Requests = slices.Clone(sv.Scenario.Requests)
	s.sc.Policies = slices.Clone(sv.Scenario.Policies)
	return s, nil
}

// checkSavedClients checks the clients as the session keeps them: 1 to
// scenario.MaxKeys names (a loaded scenario brings up to that many; the
// page adds up to MaxClients) of scenario keys whose hashes do not collide,
// the selected one among them, and every request's client among them.
func checkSavedClients(sv Saved, add func(field, format string, args ...any)) {
	if len(sv.Clients) == 0 || len(sv.Clients) > scenario.MaxKeys {
		add("clients", "want 1 to %d clients, got %d", scenario.MaxKeys, len(sv.Clients))
		return
	}
	keys := map[policies.Key]string{}
	for i, name := range sv.Clients {
		field := fmt.Sprintf("clients[%d]", i)
		if name == "" || len(name) > scenario.MaxKeyLen {
			add(field, "want 1 to %d bytes, got %d", scenario.MaxKeyLen, len(name))
			continue
		}
		if other, seen := keys[keyOf(name)]; seen {
			add(field, "%q is listed twice or hashes to the same key as %q", name, other)
			continue
		}
		keys[keyOf(name)] = name
	}
	if !slices.Contains(sv.Clients, sv.Client) {
		add("client", "%q is not one of the clients", sv.Client)
	}
	for i, r := range sv.Scenario.Requests {
		if !slices.Contains(sv.Clients, r.KeyName()) {
			add(fmt.Sprintf("scenario.requests[%d].key", i), "%q is not one of the clients", r.KeyName())
			return // one is enough to tell the snapshot is broken
		}
	}
}
