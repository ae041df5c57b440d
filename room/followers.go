package room

import (
	"context"
	"errors"
	"time"
)

// Screens counts the streams following a room: phones' and projectors'
// views, and of them the streams holding the presenter's capability (a
// projector, a paired remote's spare tab).
type Screens struct {
	Phones     int `json:"phones,omitempty"`
	Projectors int `json:"projectors,omitempty"`
	Presenters int `json:"presenters,omitempty"`
}

// Add returns s with d added to each count.
func (s Screens) Add(d Screens) Screens {
	return Screens{Phones: s.Phones + d.Phones, Projectors: s.Projectors + d.Projectors, Presenters: s.Presenters + d.Presenters}
}

// Neg is -s, what takes s back.
func (s Screens) Neg() Screens { return Screens{-s.Phones, -s.Projectors, -s.Presenters} }

// IsZero reports whether s counts nothing.
func (s Screens) IsZero() bool { return s == Screens{} }

// Adds reports whether s adds a stream (a change that only takes streams
// back is never refused).
func (s Screens) Adds() bool { return s.Phones > 0 || s.Projectors > 0 || s.Presenters > 0 }

// anyone is the streams that hold no presenter's capability.
func (s Screens) anyone() int { return s.Phones + s.Projectors - s.Presenters }

// FollowersStale is how long a replica's count of a room's streams stands
// without being refreshed: a replica that died with streams open stops
// refreshing, and its streams stop counting after that. A replica serving
// streams refreshes well within it (Rooms.KeepFollowing every
// FollowersRefresh).
const FollowersStale = time.Minute

// FollowersRefresh is how often a replica serving a room's streams says
// so (Rooms.KeepFollowing).
const FollowersRefresh = 15 * time.Second

// ErrStreamsFull is the bound on a room's open streams, on every replica
// together.
var ErrStreamsFull = errors.New("room: this room has as many screens following it as it can hold")

// Follow counts one stream of room id in, on every replica's count: d is
// one phone's or one projector's stream, with Presenters 1 when it holds
// the presenter's capability. Streams count against the room's bound:
// Bounds.Followers places for anyone, and two for each of the presenter's
// devices (a projector and a spare tab) that only a presenter's stream
// takes, so no number of attendees' streams shuts the presenter out of the
// projector (ErrStreamsFull). It returns the room's streams with this one;
// Unfollow takes it back.
func (rs *Rooms) Follow(ctx context.Context, id string, d Screens) (Screens, error) {
	b := rs.bounds
	return rs.store.Follow(ctx, id, d, rs.now(), func(t Screens) error {
		if d.Presenters > 0 && t.Presenters > 2*b.Devices || d.Presenters == 0 && t.anyone() > b.Followers {
			return ErrStreamsFull
		}
		return nil
	})
}

// Unfollow takes back a stream Follow counted. It runs with a context of
// its own: a stream ends when its request's context does.
func (rs *Rooms) Unfollow(id string, d Screens) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = rs.store.Follow(ctx, id, d.Neg(), rs.now(), nil)
}

// KeepFollowing says again that this replica's streams of room id are
// open, so that other replicas keep counting them (FollowersStale).
func (rs *Rooms) KeepFollowing(ctx context.Context, id string) error {
	_, err := rs.store.Follow(ctx, id, Screens{}, rs.now(), nil)
	return err
}

// Screens is how many streams follow room id, on every replica.
func (rs *Rooms) Screens(ctx context.Context, id string) (Screens, error) {
	return rs.store.Followers(ctx, id, rs.now())
}

// FollowWith is the rule of Store.Follow for one count, for the stores:
// total after d, refused by fits when d adds a stream.
func FollowWith(cur, d Screens, fits func(Screens) error) (Screens, error) {
	next := cur.Add(d)
	next = Screens{max(next.Phones, 0), max(next.Projectors, 0), max(next.Presenters, 0)}
	if d.Adds() && fits != nil {
		if err := fits(next); err != nil {
			return cur, err
		}
	}
	return next, nil
}
