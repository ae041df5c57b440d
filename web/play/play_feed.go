package play

import (
	"context"
	"sync"
	"time"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
)

// sessionFeed is this process's one follower of a session its play streams
// show: it watches the store once, reads each change once, touches the
// session once every UpdateInterval and, while the clock plays, reads the
// clock at each of those instants once. Every stream of the session renders
// the snapshot it publishes, so ten pages open on one playground cost the
// store what one does, and a playing clock is read once per session, not
// once per stream.
type sessionFeed struct {
	mu     sync.Mutex
	latest *play.Session
	next   chan struct{} // closed when latest is replaced
	ended  bool          // the store forgot the session: nothing follows

	streams int // guarded by sessionFeeds.mu
	stop    context.CancelFunc
}

// sessionFeeds are the feeds of the sessions this process streams.
type sessionFeeds struct {
	mu    sync.Mutex
	feeds map[string]*sessionFeed
}

// join counts a stream of session id in, starting its feed if it has none,
// and returns the feed; play.ErrNotFound when the store does not hold id.
// It holds fs.mu while a new feed's Watch and Get run: instant in memory; a
// store across the network would want the wait per id instead.
func (fs *sessionFeeds) join(store play.Sessions, closing context.Context, id string) (*sessionFeed, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f := fs.feeds[id]; f != nil {
		if _, _, ended := f.current(); !ended {
			f.streams++
			return f, nil
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopWithServer := context.AfterFunc(closing, cancel)
	stop := func() { stopWithServer(); cancel() }
	changes, err := store.Watch(ctx, id)
	if err != nil {
		stop()
		return nil, err
	}
	// Read once the store tells of every later change: one made before
	// Watch is in this copy.
	sess, err := store.Get(ctx, id)
	if err != nil {
		stop()
		return nil, err
	}
	f := &sessionFeed{latest: sess, next: make(chan struct{}), streams: 1, stop: stop}
	if fs.feeds == nil {
		fs.feeds = map[string]*sessionFeed{}
	}
	fs.feeds[id] = f
	go f.run(ctx, store, id, changes)
	return f, nil
}

// leave counts a stream out; the last one out stops the feed.
func (fs *sessionFeeds) leave(id string, f *sessionFeed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f.streams--; f.streams > 0 {
		return
	}
	f.stop()
	if fs.feeds[id] == f {
		delete(fs.feeds, id)
	}
}

// current returns the newest snapshot, the channel closed at the next one,
// and whether the feed has ended.
func (f *sessionFeed) current() (*play.Session, <-chan struct{}, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.latest, f.next, f.ended
}

func (f *sessionFeed) publish(s *play.Session, ended bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s != nil {
		f.latest = s
	}
	f.ended = f.ended || ended
	close(f.next)
	f.next = make(chan struct{})
}

// run follows the session until ctx ends or the store forgets it.
func (f *sessionFeed) run(ctx context.Context, store play.Sessions, id string, changes <-chan struct{}) {
	ticker := time.NewTicker(web.UpdateInterval)
	defer ticker.Stop()
	var touched time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case _, open := <-changes:
			if !open {
				f.publish(nil, true)
				return
			}
			sess, err := store.Get(ctx, id)
			if err != nil {
				f.publish(nil, ctx.Err() == nil)
				return
			}
			f.publish(sess, false)
		case now := <-ticker.C:
			// A watched session never idles out (play.Sessions); the
			// store also hears it is used.
			if now.Sub(touched) >= web.TouchEvery {
				if err := store.Touch(ctx, id); err != nil {
					f.publish(nil, ctx.Err() == nil)
					return
				}
				touched = now
			}
			if sess, _, _ := f.current(); sess.Playing() {
				// Only the clock moved, and nothing is stored: read
				// it at this instant.
				f.publish(sess.At(now), false)
			}
		}
	}
}
