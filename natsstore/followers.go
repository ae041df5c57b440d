package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/windowlab/playground/room"
)

// replicaScreens is one replica's streams of a room, as it last said them.
type replicaScreens struct {
	room.Screens
	Seen time.Time `json:"seen"`
}

// followers is a room's "f.<hex id>" key: each replica's streams of it,
// by the replica's handle name (random, drawn as the handle opens).
type followers map[string]replicaScreens

// total sums the replicas' streams said within room.FollowersStale of
// now, and drops the others (their replica stopped saying so).
func (f followers) total(now time.Time) room.Screens {
	var t room.Screens
	for name, r := range f {
		if now.Sub(r.Seen) > room.FollowersStale {
			delete(f, name)
			continue
		}
		t = t.Add(r.Screens)
	}
	return t
}

func (s *Rooms) readFollowers(ctx context.Context, id string) (followers, uint64, error) {
	f := followers{}
	e, err := s.kv.Get(ctx, followersKey(id))
	if gone(err) {
		return f, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("natsstore: reading a room's followers: %w", err)
	}
	if err := json.Unmarshal(e.Value(), &f); err != nil {
		return nil, 0, fmt.Errorf("natsstore: decoding a room's followers: %w", err)
	}
	return f, e.Revision(), nil
}

// Follow implements room.Store. This handle's own count of each room is
// what it writes (not a difference), so a count another replica dropped
// as stale comes back whole at the next refresh. Every change is one
// revision-checked write of the room's key, retried from the read after
// backing off as the index does (backOff: a classroom's phones join at
// once, on every replica), so replicas admitting streams at once are
// counted one after the other; a handle changes one count at a time, so
// that its own streams do not race each other for the key.
func (s *Rooms) Follow(ctx context.Context, id string, d room.Screens, now time.Time, fits func(room.Screens) error) (room.Screens, error) {
	if !named(id) {
		return room.Screens{}, room.ErrNotFound
	}
	s.following.Lock()
	defer s.following.Unlock()
	mine := s.mine[id]
	if !d.Adds() {
		// Streams that ended have ended whether or not NATS hears of it
		// now: this handle's count drops at once, and a write lost here
		// is made good by the next refresh (room.Rooms.KeepFollowing),
		// never re-saying streams that are gone.
		next, _ := room.FollowWith(mine, d, nil)
		if next.IsZero() {
			delete(s.mine, id)
		} else {
			s.mine[id] = next
		}
	}
	for try := range maxRetries {
		f, rev, err := s.readFollowers(ctx, id)
		if err != nil {
			return room.Screens{}, err
		}
		delete(f, s.name)
		others := f.total(now)
		next, err := room.FollowWith(mine, d, func(t room.Screens) error {
			if fits == nil {
				return nil
			}
			return fits(others.Add(t))
		})
		if err != nil {
			return others.Add(mine), err
		}
		if !next.IsZero() {
			f[s.name] = replicaScreens{Screens: next, Seen: now}
		}
		switch {
		case len(f) == 0 && rev == 0:
		case len(f) == 0:
			err = s.kv.Purge(ctx, followersKey(id), jetstream.LastRevision(rev))
		default:
			var b []byte
			if b, err = json.Marshal(f); err != nil {
				return room.Screens{}, err
			}
			if rev == 0 {
				_, err = s.kv.Create(ctx, followersKey(id), b)
			} else {
				_, err = s.kv.Update(ctx, followersKey(id), b, rev)
			}
		}
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
			if err := backOff(ctx, try); err != nil {
				return room.Screens{}, err
			}
			continue
		}
		if err != nil {
			return room.Screens{}, fmt.Errorf("natsstore: writing a room's followers: %w", err)
		}
		if next.IsZero() {
			delete(s.mine, id)
		} else {
			s.mine[id] = next
		}
		return others.Add(next), nil
	}
	return room.Screens{}, fmt.Errorf("natsstore: room %s's followers changed under %d tries in a row", id, maxRetries)
}

// Followers implements room.Store.
func (s *Rooms) Followers(ctx context.Context, id string, now time.Time) (room.Screens, error) {
	if !named(id) {
		return room.Screens{}, room.ErrNotFound
	}
	f, _, err := s.readFollowers(ctx, id)
	if err != nil {
		return room.Screens{}, err
	}
	return maps.Clone(f).total(now), nil
}
