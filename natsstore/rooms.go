package natsstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/windowlab/playground/room"
)

// MaxValueBytes is the largest value this package writes: NATS's default
// message limit, less room for the headers JetStream adds.
const MaxValueBytes = 1<<20 - 4<<10

// ErrTooLarge is returned instead of writing a value over MaxValueBytes.
var ErrTooLarge = errors.New("natsstore: the value is larger than a NATS message may be")

// maxRetries bounds how often one Update rereads a key that other writers
// keep changing under it. Rooms change a few times a second, so a few
// tries suffice; the bound only keeps a pathological writer from spinning
// a handler for ever.
const maxRetries = 64

// RoomsOptions configure a rooms bucket.
type RoomsOptions struct {
	// Bucket names the key-value bucket; "" means "rooms".
	Bucket string
	// MaxAge drops a room not written for this long, a safety net behind
	// the domain's own sweep (see the package doc); 0 means 24 hours.
	MaxAge time.Duration
	// Memory keeps the bucket in the server's memory instead of its files
	// (tests; a restart then forgets every room).
	Memory bool
}

// Rooms is a room.Store in a JetStream key-value bucket. A room is JSON
// under "id.<hex id>"; its join code maps to the id under
// "code.<hex code>"; "index" counts the rooms and their owners (see
// index), and "f.<hex id>" the streams following the room on each replica
// (see Follow). Safe for concurrent use, and by several processes on
// one NATS server.
type Rooms struct {
	kv     jetstream.KeyValue
	maxAge time.Duration
	name   string // this handle's, in followers keys

	following sync.Mutex              // see Follow
	mine      map[string]room.Screens // this handle's streams of each room
}

var _ room.Store = (*Rooms)(nil)

// OpenRooms opens (creating if needed) the rooms bucket over nc.
func OpenRooms(ctx context.Context, nc *nats.Conn, opts RoomsOptions) (*Rooms, error) {
	kv, err := openBucket(ctx, nc, opts.Bucket, "rooms", opts.MaxAge, opts.Memory)
	if err != nil {
		return nil, err
	}
	return &Rooms{kv: kv, maxAge: cmp.Or(opts.MaxAge, 24*time.Hour), name: newID(), mine: map[string]room.Screens{}}, nil
}

// openBucket creates or opens a bucket with one revision per key: the
// stores read only the newest value, and older ones would only take space.
func openBucket(ctx context.Context, nc *nats.Conn, name, def string, maxAge time.Duration, memory bool) (jetstream.KeyValue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsstore: %w", err)
	}
	if name == "" {
		name = def
	}
	if maxAge == 0 {
		maxAge = 24 * time.Hour
	}
	storage := jetstream.FileStorage
	if memory {
		storage = jetstream.MemoryStorage
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:       name,
		History:      1,
		TTL:          maxAge,
		MaxValueSize: MaxValueBytes,
		Storage:      storage,
		Replicas:     replicasFor(nc),
	})
	if err != nil {
		return nil, fmt.Errorf("natsstore: opening bucket %q: %w", name, err)
	}
	return readFromLeader(ctx, js, kv)
}

// readFromLeader reopens a replicated bucket so that its gets go to the
// stream's leader. A key-value bucket is made to answer gets from any of
// its replicas (AllowDirect), and a replica behind the leader answers
// with the value before: a hub told of a change by its watch (which the
// leader serves) read the session before the change and showed it until
// the next one (a browser test's playing clock stayed "paused" on a
// cluster of three). Each process that opens the bucket sets it again,
// and its handle keeps the setting it opened with.
func readFromLeader(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue) (jetstream.KeyValue, error) {
	st, err := js.Stream(ctx, "KV_"+kv.Bucket())
	if err != nil {
		return nil, fmt.Errorf("natsstore: reading bucket %q: %w", kv.Bucket(), err)
	}
	cfg := st.CachedInfo().Config
	if cfg.Replicas <= 1 || !cfg.AllowDirect {
		return kv, nil
	}
	cfg.AllowDirect = false
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return nil, fmt.Errorf("natsstore: bucket %q: %w", kv.Bucket(), err)
	}
	kv, err = js.KeyValue(ctx, kv.Bucket())
	if err != nil {
		return nil, fmt.Errorf("natsstore: reopening bucket %q: %w", kv.Bucket(), err)
	}
	return kv, nil
}

func idKey(id string) string        { return keyOf("id", id) }
func followersKey(id string) string { return keyOf("f", id) }
func codeKey(code string) string    { return keyOf("code", code) }

// encode is the stored form of r, refused when NATS could not carry it.
func encode(r *room.Room) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("natsstore: encoding room: %w", err)
	}
	if len(b) > MaxValueBytes {
		return nil, ErrTooLarge
	}
	return b, nil
}

func decode(b []byte) (*room.Room, error) {
	var r room.Room
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("natsstore: decoding room: %w", err)
	}
	return &r, nil
}

// gone reports a key that is absent, deleted or purged.
func gone(err error) bool {
	return errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted)
}

// Create implements room.Store. The code is claimed first with a
// create-if-absent write, so two processes can never hand out one code;
// the room is then written, and counted last, in the bucket's index (see
// index): one revision-checked write that refuses a room past the limit
// or its owner's share, so that creators on any number of replicas are
// counted one after the other. A refused room takes its keys back.
func (s *Rooms) Create(ctx context.Context, r *room.Room, limit, perOwner int) error {
	if !named(r.ID) || !named(r.Code) {
		return errors.New("natsstore: a room's id and code are 1 to 256 bytes")
	}
	b, err := encode(r)
	if err != nil {
		return err
	}
	if _, err := s.kv.Create(ctx, codeKey(r.Code), []byte(r.ID)); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return room.ErrCodeTaken
		}
		return fmt.Errorf("natsstore: claiming a join code: %w", err)
	}
	if _, err := s.kv.Create(ctx, idKey(r.ID), b); err != nil {
		s.release(r.Code, r.ID)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return errors.New("room: a room with this id exists")
		}
		return fmt.Errorf("natsstore: writing a room: %w", err)
	}
	if err := s.admit(ctx, r.ID, r.Owner, limit, perOwner); err != nil {
		s.purge(r.ID, r.Code)
		return err
	}
	return nil
}

// admit enters room id, owner's, into the index: ErrClientRooms when
// owner holds perOwner rooms, ErrFull when limit are stored. Rooms the
// index counts whose keys are gone are dead (see index) and dropped,
// looked for only when a bound would refuse: a store holds the rooms
// bound's few dozen at most.
func (s *Rooms) admit(ctx context.Context, id, owner string, limit, perOwner int) error {
	return changeIndex(ctx, s.kv, func(ix *index) error {
		owned := func() int {
			n := 0
			for _, o := range ix.Owners {
				if o == owner {
					n++
				}
			}
			return n
		}
		if owned() >= perOwner || len(ix.Owners) >= limit {
			for _, other := range sortedIDs(ix) {
				if _, err := s.kv.Get(ctx, idKey(other)); gone(err) {
					delete(ix.Owners, other)
				} else if err != nil {
					return fmt.Errorf("natsstore: reading a room: %w", err)
				}
			}
		}
		switch {
		case owned() >= perOwner:
			return room.ErrClientRooms
		case len(ix.Owners) >= limit:
			return room.ErrFull
		}
		ix.Owners[id] = owner
		return nil
	})
}

// release takes back a claimed code, if it is still this room's. It runs
// on a path that is already failing, with a context of its own, so that
// a caller's cancelled context cannot leave a code claimed for ever.
func (s *Rooms) release(code, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := s.kv.Get(ctx, codeKey(code))
	if err != nil || string(e.Value()) != id {
		return
	}
	_ = s.kv.Purge(ctx, codeKey(code), jetstream.LastRevision(e.Revision()))
}

// purge deletes a room's keys and its code (see release for the
// context), but not its place in the index.
func (s *Rooms) purge(id, code string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.kv.Purge(ctx, idKey(id))
	_ = s.kv.Purge(ctx, followersKey(id))
	s.release(code, id)
}

// Get implements room.Store.
func (s *Rooms) Get(ctx context.Context, id string) (*room.Room, error) {
	r, _, err := s.get(ctx, id)
	return r, err
}

func (s *Rooms) get(ctx context.Context, id string) (*room.Room, uint64, error) {
	if !named(id) {
		return nil, 0, room.ErrNotFound
	}
	e, err := s.kv.Get(ctx, idKey(id))
	if gone(err) {
		return nil, 0, room.ErrNotFound
	}
	if err != nil {
		return nil, 0, fmt.Errorf("natsstore: reading a room: %w", err)
	}
	r, err := decode(e.Value())
	if err != nil {
		return nil, 0, err
	}
	return r, e.Revision(), nil
}

// GetByCode implements room.Store.
func (s *Rooms) GetByCode(ctx context.Context, code string) (*room.Room, error) {
	if !named(code) {
		return nil, room.ErrNotFound
	}
	e, err := s.kv.Get(ctx, codeKey(code))
	if gone(err) {
		return nil, room.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: reading a join code: %w", err)
	}
	r, err := s.Get(ctx, string(e.Value()))
	if err == nil && r.Code != code {
		// The code was reissued between the two reads.
		return nil, room.ErrNotFound
	}
	return r, err
}

// Update implements room.Store: read with the revision, change a copy,
// write it only at that revision, and start again from the read when
// another writer changed the room first. fn may therefore run more than
// once, which room.Store allows.
func (s *Rooms) Update(ctx context.Context, id string, fn func(*room.Room) error) (*room.Room, error) {
	for range maxRetries {
		r, rev, err := s.get(ctx, id)
		if err != nil {
			return nil, err
		}
		c := r.Clone()
		if err := fn(c); err != nil {
			return nil, err
		}
		if c.ID != r.ID || c.Code != r.Code {
			return nil, errors.New("room: an update may not change a room's id or code")
		}
		b, err := encode(c)
		if err != nil {
			return nil, err
		}
		_, err = s.kv.Update(ctx, idKey(id), b, rev)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("natsstore: writing a room: %w", err)
		}
		return c, nil
	}
	return nil, fmt.Errorf("natsstore: room %s changed under %d tries in a row", id, maxRetries)
}

// Delete implements room.Store.
func (s *Rooms) Delete(ctx context.Context, id string) error {
	r, _, err := s.get(ctx, id)
	if errors.Is(err, room.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.kv.Purge(ctx, idKey(id)); err != nil && !gone(err) {
		return fmt.Errorf("natsstore: deleting a room: %w", err)
	}
	_ = s.kv.Purge(ctx, followersKey(id))
	s.release(r.Code, r.ID)
	unindex(s.kv, id)
	return nil
}

// all reads every room the index counts; a room deleted meanwhile is left
// out.
func (s *Rooms) all(ctx context.Context) ([]*room.Room, error) {
	ix, err := readIndex(ctx, s.kv)
	if err != nil {
		return nil, err
	}
	rooms := make([]*room.Room, 0, len(ix.Owners))
	for _, id := range sortedIDs(ix) {
		e, err := s.kv.Get(ctx, idKey(id))
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("natsstore: reading a room: %w", err)
		}
		r, err := decode(e.Value())
		if err != nil {
			return nil, err
		}
		rooms = append(rooms, r)
	}
	return rooms, nil
}

// ShowingSession implements room.Store.
func (s *Rooms) ShowingSession(ctx context.Context, session string) ([]string, error) {
	rooms, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rooms {
		if r.Session == session {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

// DeleteIf implements room.Store.
func (s *Rooms) DeleteIf(ctx context.Context, drop func(*room.Room) bool) (int, error) {
	rooms, err := s.all(ctx)
	if err != nil {
		return 0, err
	}
	renewIndex(ctx, s.kv, s.maxAge) // rooms sweep often; the index must outlive its rooms
	n := 0
	for _, r := range rooms {
		if !drop(r) {
			continue
		}
		if err := s.Delete(ctx, r.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Watch implements room.Store over a key watcher: the server pushes each
// new revision of the room, and of its followers' count, on whichever
// process wrote it.
func (s *Rooms) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	if _, _, err := s.get(ctx, id); err != nil {
		return nil, err
	}
	return watchKey(ctx, s.kv, idKey(id), followersKey(id))
}

// watchKey turns a key watcher into the stores' one-pending-value
// channel, closed when key is deleted or ctx ends; also tells of changes
// of the keys along with it (whose deletion it does not tell).
func watchKey(ctx context.Context, kv jetstream.KeyValue, key string, along ...string) (<-chan struct{}, error) {
	w, err := kv.WatchFiltered(ctx, append([]string{key}, along...), jetstream.UpdatesOnly())
	if err != nil {
		return nil, fmt.Errorf("natsstore: watching: %w", err)
	}
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil {
					continue // the end of the initial values, which UpdatesOnly leaves empty
				}
				if e.Operation() != jetstream.KeyValuePut {
					if e.Key() == key {
						return
					}
					continue
				}
				select {
				case ch <- struct{}{}:
				default: // one change is already pending: the watcher reads the newest
				}
			}
		}
	}()
	return ch, nil
}
