package room

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Store keeps rooms. The in-memory MemStore serves one process; the
// interface is small enough for a NATS JetStream key-value bucket to hold
// rooms later (a room is plain JSON; Update maps onto a revision-checked
// update; the code index onto a second key), without touching the rest.
type Store interface {
	// Create stores a new room unless limit rooms are stored (ErrFull),
	// perOwner rooms of r.Owner are (ErrClientRooms), or a stored room has
	// its code (ErrCodeTaken) or id.
	Create(ctx context.Context, r *Room, limit, perOwner int) error
	// Get returns a copy of the room with id, or ErrNotFound.
	Get(ctx context.Context, id string) (*Room, error)
	// GetByCode returns a copy of the room with the join code, or
	// ErrNotFound.
	GetByCode(ctx context.Context, code string) (*Room, error)
	// Update changes the room with id atomically: fn gets a copy, and the
	// copy is stored only if fn returns nil. fn may run more than once (a
	// key-value store retries it when another writer got there first), so
	// it must depend only on the room it is given.
	Update(ctx context.Context, id string, fn func(*Room) error) (*Room, error)
	// Delete forgets the room with id; deleting an absent room is no error.
	Delete(ctx context.Context, id string) error
	// ShowingSession returns the ids of the rooms over the play session
	// session (a scan is fine: a store holds Bounds.Rooms rooms at most).
	ShowingSession(ctx context.Context, session string) ([]string, error)
	// DeleteIf forgets every room for which drop is true and returns how
	// many it forgot. drop may read the room but not keep or change it.
	DeleteIf(ctx context.Context, drop func(*Room) bool) (int, error)
	// Watch returns a channel that receives a value after each change of
	// the room with id, and is closed when the room is deleted or ctx ends.
	// It holds at most one pending value: a slow watcher that missed
	// several changes learns once that there is something new, then reads
	// the newest room with Get. That keeps every watcher's cost fixed,
	// however fast the room changes.
	Watch(ctx context.Context, id string) (<-chan struct{}, error)
	// Follow changes by d the streams this handle (one replica of the
	// app) serves of room id, and returns the room's streams on every
	// handle, counting each handle's as last said within FollowersStale
	// of now (its replica may have died). When d adds a stream, fits is
	// asked first with the total it makes, and its error refuses the
	// change; replicas counting at once are counted one after the other.
	// A change notifies the room's watchers (a projector shows how many
	// follow), and a zero d only says again that this handle's streams
	// are open.
	Follow(ctx context.Context, id string, d Screens, now time.Time, fits func(total Screens) error) (Screens, error)
	// Followers is the room's streams on every handle, as Follow counts
	// them, without changing them.
	Followers(ctx context.Context, id string, now time.Time) (Screens, error)
}

// ErrCodeTaken is returned by Store.Create when a live room has the code.
var ErrCodeTaken = errors.New("room: the join code is in use")

// MemStore is a Store in memory, safe for concurrent use.
type MemStore struct {
	mu       sync.Mutex
	byID     map[string]*Room
	byCode   map[string]string // code → id
	watchers map[string]map[chan struct{}]struct{}
	screens  map[string]Screens // room id → its streams
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{byID: map[string]*Room{}, byCode: map[string]string{}, watchers: map[string]map[chan struct{}]struct{}{}, screens: map[string]Screens{}}
}

var _ Store = (*MemStore)(nil)

// Create implements Store.
func (m *MemStore) Create(_ context.Context, r *Room, limit, perOwner int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	owned := 0
	for _, o := range m.byID {
		if o.Owner == r.Owner {
			owned++
		}
	}
	switch {
	case owned >= perOwner:
		return ErrClientRooms
	case len(m.byID) >= limit:
		return ErrFull
	case m.byCode[r.Code] != "":
		return ErrCodeTaken
	case m.byID[r.ID] != nil:
		return errors.New("room: a room with this id exists")
	}
	m.byID[r.ID] = r.Clone()
	m.byCode[r.Code] = r.ID
	return nil
}

// Get implements Store.
func (m *MemStore) Get(_ context.Context, id string) (*Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byID[id]
	if !ok {
		return nil, ErrNotFound
	}
	return r.Clone(), nil
}

// GetByCode implements Store.
func (m *MemStore) GetByCode(ctx context.Context, code string) (*Room, error) {
	m.mu.Lock()
	id, ok := m.byCode[code]
	m.mu.Unlock()
	if !ok {
		return nil, ErrNotFound
	}
	return m.Get(ctx, id)
}

// Update implements Store. It holds the store's lock while fn runs: fn is
// quick (a question's replay at most), and rooms change a few times a second.
func (m *MemStore) Update(_ context.Context, id string, fn func(*Room) error) (*Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byID[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	if c.ID != r.ID || c.Code != r.Code {
		return nil, errors.New("room: an update may not change a room's id or code")
	}
	m.byID[id] = c
	m.notifyLocked(id)
	return c.Clone(), nil
}

func (m *MemStore) notifyLocked(id string) {
	for w := range m.watchers[id] {
		select {
		case w <- struct{}{}:
		default: // one change is already pending: the watcher will read the newest
		}
	}
}

// Follow implements Store: one process, one count.
func (m *MemStore) Follow(_ context.Context, id string, d Screens, _ time.Time, fits func(Screens) error) (Screens, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.screens[id]
	next, err := FollowWith(cur, d, fits)
	if err != nil {
		return cur, err
	}
	if next.IsZero() {
		delete(m.screens, id)
	} else {
		m.screens[id] = next
	}
	if next != cur {
		m.notifyLocked(id)
	}
	return next, nil
}

// Followers implements Store.
func (m *MemStore) Followers(_ context.Context, id string, _ time.Time) (Screens, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.screens[id], nil
}

// Delete implements Store.
func (m *MemStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.byID[id]; ok {
		m.forgetLocked(id, r.Code)
	}
	return nil
}

// forgetLocked deletes a room and closes its watchers' channels.
func (m *MemStore) forgetLocked(id, code string) {
	delete(m.byCode, code)
	delete(m.byID, id)
	delete(m.screens, id)
	for w := range m.watchers[id] {
		close(w)
	}
	delete(m.watchers, id)
}

// ShowingSession implements Store.
func (m *MemStore) ShowingSession(_ context.Context, session string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for id, r := range m.byID {
		if r.Session == session {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// DeleteIf implements Store.
func (m *MemStore) DeleteIf(_ context.Context, drop func(*Room) bool) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, r := range m.byID {
		if drop(r) {
			m.forgetLocked(id, r.Code)
			n++
		}
	}
	return n, nil
}

// Watch implements Store.
func (m *MemStore) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byID[id]; !ok {
		return nil, ErrNotFound
	}
	w := make(chan struct{}, 1)
	if m.watchers[id] == nil {
		m.watchers[id] = map[chan struct{}]struct{}{}
	}
	m.watchers[id][w] = struct{}{}
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.watchers[id][w]; ok {
			delete(m.watchers[id], w)
			close(w)
			if len(m.watchers[id]) == 0 {
				delete(m.watchers, id)
			}
		}
	})
	return w, nil
}
