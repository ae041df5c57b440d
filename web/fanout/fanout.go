// Package fanout is the framework's render-once fan-out, which rooms
// (web/room) and playground streams (web/play) share. The screens
// following one subject (a room, a session) are served by its Hub: the
// feature renders each view (phone, projector, presentation) once per
// change and publishes its regions; the hub encodes the changed ones
// once, compresses them once, and keeps only each view's latest frame,
// with a channel closed at the next. A follower (Follow) writes those same
// bytes: the changed regions if it holds the frame before, every region if
// it fell further behind, so a slow one skips to the newest instead of
// queueing. Its own state is a goroutine and the dozen bytes of its gzip
// member's CRC and length.
package fanout

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"sync"
	"time"

	"github.com/klauspost/compress/flate"

	"github.com/windowlab/playground/web"
)

// Region is one element a view replaces, by id. A region In a list (the
// list's selector) is appended to it when new and removed when gone; full
// frames carry the list whole instead, as a region marked Full that
// updates leave out.
//
// A region may name parts of itself that change more often than the rest
// (a lane's clock line and state, while its hundreds of marks stay put):
// each is a region Of the one holding it, listed after it, and the holder's
// Key is its HTML with each part replaced by a mark of its own (its ID, so
// that a part coming or going changes the Key). An update sends the holder whole when its
// Key changed, and else only the parts that changed; full frames carry the
// holder, which holds its parts.
type Region struct {
	ID, HTML, In string
	Full         bool
	// Key, when set, stands for HTML in telling whether the region
	// changed since the last frame.
	Key string
	// Of is the ID of the region this one is part of.
	Of string
}

// key is what tells whether rg changed.
func (rg Region) key() string {
	if rg.Key != "" {
		return rg.Key
	}
	return rg.HTML
}

type frame struct {
	version     uint64
	full, delta *chunk // full is nil while no frame waits for a new follower
}

// Hub is one subject's latest frame of each view, and its followers.
type Hub struct {
	mu        sync.Mutex
	frames    []frame
	followers []int
	next      chan struct{} // closed when a frame is published
	ended     bool
	poke      chan struct{}
	last      [][]Region // what Publish rendered last, per view: its caller's own
}

// Followers is how many streams follow view v.
func (h *Hub) Followers(v int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.followers[v]
}

// Poked hears (one pending poke standing for many) that a follower came or
// went: a view may want a frame for it, or shows how many follow.
func (h *Hub) Poked() <-chan struct{} { return h.poke }

// Publish makes the rendered views the latest frames; a nil view is not
// rendered this time (nobody follows it). A view gets a frame when one of
// its regions changed, or when it has none for a new follower. One
// goroutine at a time publishes.
func (h *Hub) Publish(views [][]Region) error {
	out := make([]frame, len(views))
	for v, regions := range views {
		if regions == nil {
			continue
		}
		prev, now, sent := map[string]string{}, map[string]bool{}, map[string]bool{}
		for _, rg := range h.last[v] {
			prev[rg.ID] = rg.key()
		}
		var full, delta, removed bytes.Buffer
		for _, rg := range regions {
			if rg.In == "" && rg.Of == "" {
				web.EncodeFragments(&full, rg.HTML)
			}
			if now[rg.ID] = true; rg.Full {
				continue
			}
			switch old, had := prev[rg.ID]; {
			case had && old == rg.key():
			case rg.Of != "" && (sent[rg.Of] || !hadRegion(prev, rg.Of)):
				// Its holder went whole, or is new.
			case !had && rg.In != "":
				sent[rg.ID] = true
				web.EncodeFragments(&delta, rg.HTML, web.WithSelector(rg.In), web.WithMergeMode(web.MergeAppend))
			default:
				sent[rg.ID] = true
				web.EncodeFragments(&delta, rg.HTML)
			}
		}
		for _, rg := range h.last[v] {
			if !now[rg.ID] && rg.Of == "" { // a part goes with its holder
				web.EncodeEvent(&removed, web.EventRemoveFragments, []string{"selector #" + rg.ID})
			}
		}
		h.last[v] = regions
		if fr, _, _ := h.latest(v); delta.Len()+removed.Len() == 0 && fr.full != nil {
			continue
		}
		var err error
		if out[v].full, err = newChunk(full.Bytes()); err == nil {
			out[v].delta, err = newChunk(append(removed.Bytes(), delta.Bytes()...))
		}
		if err != nil {
			return err
		}
	}
	h.publish(out, false)
	return nil
}

func hadRegion(prev map[string]string, id string) bool {
	_, ok := prev[id]
	return ok
}

// End publishes the last frame of every view, the regions given (with
// none, the streams just close), and ends the hub.
func (h *Hub) End(regions ...Region) {
	var raw bytes.Buffer
	for _, rg := range regions {
		web.EncodeFragments(&raw, rg.HTML)
	}
	out := make([]frame, len(h.frames))
	if c, err := newChunk(raw.Bytes()); err == nil && len(regions) > 0 {
		for v := range out {
			out[v] = frame{full: c, delta: c}
		}
	}
	h.publish(out, true)
}

func (h *Hub) publish(out []frame, end bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = h.ended || end
	for v, f := range out {
		if f.full != nil {
			f.version = h.frames[v].version + 1
			h.frames[v], end = f, true
		}
	}
	if end {
		close(h.next)
		h.next = make(chan struct{})
	}
}

func (h *Hub) latest(v int) (frame, <-chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.frames[v], h.next, h.ended
}

// heartbeat is what a quiet follower sends: empty signals.
var heartbeat, _ = newChunk([]byte("event: " + string(web.EventMergeSignals) + "\ndata: signals {}\n\n\n"))

// Follow streams view v of h to one follower until its request, the
// server (closing) or the hub ends, or a write fails. With beat > 0 a
// follower silent that long sends an empty event (see web.StreamHeartbeat).
func (h *Hub) Follow(closing context.Context, w http.ResponseWriter, r *http.Request, v int, beat time.Duration) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(closing, cancel)()
	g, err := startShared(w, r)
	if err != nil {
		return
	}
	defer g.end()
	quiet := time.NewTimer(time.Hour)
	defer quiet.Stop()
	var sent uint64
	for {
		fr, next, ended := h.latest(v)
		c := fr.full
		if sent != 0 && fr.version == sent+1 {
			c = fr.delta
		}
		if fr.version != sent && c != nil {
			if g.send(c) != nil {
				return
			}
			sent = fr.version
			if beat > 0 {
				quiet.Reset(beat)
			}
		}
		if ended {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-next:
		case <-quiet.C:
			if beat <= 0 {
				continue
			}
			if g.send(heartbeat) != nil {
				return
			}
			quiet.Reset(beat)
		}
	}
}

// Hubs are a feature's running hubs by subject id, each with the feature's
// state S: a subject's first follower starts its hub, its last stops it.
// They are as many as the subjects followed, which the features' stores
// bound.
type Hubs[S any] struct {
	mu   sync.Mutex
	hubs map[string]*hubOf[S]
}

type hubOf[S any] struct {
	*Hub
	state S
	n     int // followers, under Hubs.mu
	stop  context.CancelFunc
}

// JoinOptions are how a follower joins a subject's hub.
type JoinOptions[S any] struct {
	// View is the view the follower follows, of the Views a hub has.
	View, Views int
	// Start makes a new hub's state and starts its work, under a context
	// that ends with the hub or with the server (Join's closing).
	Start func(ctx context.Context, h *Hub) (S, error)
	// Admit, when set, may refuse the follower.
	Admit func(h *Hub, state S) error
}

// A Follower is one follower of a hub: the hub, the feature's state, and
// Leave, which counts it out (once, however often called).
type Follower[S any] struct {
	Hub   *Hub
	State S
	Leave func()
}

// Join counts a follower into the hub of id, starting one (o.Start) when
// none lives. Start and Admit run under the lock of hs.
func (hs *Hubs[S]) Join(closing context.Context, id string, o JoinOptions[S]) (Follower[S], error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	e := hs.hubs[id]
	if e != nil {
		if _, _, ended := e.latest(0); ended {
			e = nil
		}
	}
	if e == nil {
		ctx, cancel := context.WithCancel(context.Background())
		stop := context.AfterFunc(closing, cancel)
		e = &hubOf[S]{Hub: &Hub{frames: make([]frame, o.Views), followers: make([]int, o.Views), next: make(chan struct{}),
			poke: make(chan struct{}, 1), last: make([][]Region, o.Views)}, stop: func() { stop(); cancel() }}
		var err error
		if e.state, err = o.Start(ctx, e.Hub); err != nil {
			e.stop()
			return Follower[S]{}, err
		}
		if hs.hubs == nil {
			hs.hubs = map[string]*hubOf[S]{}
		}
		hs.hubs[id] = e
	}
	if o.Admit != nil {
		if err := o.Admit(e.Hub, e.state); err != nil {
			if e.n == 0 { // started for this follower alone
				e.stop()
				delete(hs.hubs, id)
			}
			return Follower[S]{}, err
		}
	}
	e.n++
	e.count(o.View, +1)
	var once sync.Once
	leave := func() { once.Do(func() { hs.leave(id, e, o.View) }) }
	return Follower[S]{Hub: e.Hub, State: e.state, Leave: leave}, nil
}

// count adds d followers to view v; a view no one follows any more drops
// its frame, so that its next follower waits for one rendered for it.
func (h *Hub) count(v, d int) {
	h.mu.Lock()
	if h.followers[v] += d; h.followers[v] == 0 {
		h.frames[v].full = nil
	}
	h.mu.Unlock()
	select {
	case h.poke <- struct{}{}:
	default:
	}
}

func (hs *Hubs[S]) leave(id string, e *hubOf[S], v int) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	e.count(v, -1)
	if e.n--; e.n == 0 {
		e.stop()
		if hs.hubs[id] == e {
			delete(hs.hubs, id)
		}
	}
}

// State is the state of id's running hub, if one runs.
func (hs *Hubs[S]) State(id string) (state S, ok bool) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if e := hs.hubs[id]; e != nil {
		return e.state, true
	}
	return state, false
}

// chunk is a frame's events, raw and deflated on their own (no reference
// to what came before, ending on a byte boundary), so chunks in any order
// make a valid deflate stream and one chunk serves every follower.
type chunk struct{ raw, gz []byte }

func newChunk(raw []byte) (*chunk, error) {
	var gz bytes.Buffer
	err := flate.StatelessDeflate(&gz, raw, false, nil)
	return &chunk{raw: raw, gz: gz.Bytes()}, err
}

// sharedStream is one follower's stream of shared chunks: past its own
// gzip header (if it takes gzip), it keeps only their CRC and length.
type sharedStream struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	crc, size uint32
	gzip      bool
}

// startShared writes an event stream's headers, and gzip's (RFC 1952: no
// name, time or extra fields, deflate, unknown OS), and flushes them.
func startShared(w http.ResponseWriter, r *http.Request) (*sharedStream, error) {
	g := &sharedStream{w: w, rc: http.NewResponseController(w), gzip: web.AcceptsGzip(r)}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	if r.ProtoMajor == 1 {
		h.Set("Connection", "keep-alive")
	}
	if g.gzip {
		h.Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(http.StatusOK)
	if g.gzip {
		if _, err := w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}); err != nil {
			return nil, err
		}
	}
	return g, g.rc.Flush()
}

func (g *sharedStream) send(c *chunk) error {
	data := c.raw
	if g.gzip {
		data = c.gz
		g.crc = crc32.Update(g.crc, crc32.IEEETable, c.raw)
		g.size += uint32(len(c.raw)) // gzip's ISIZE is the length modulo 2³²
	}
	if _, err := g.w.Write(data); err != nil {
		return err
	}
	return g.rc.Flush()
}

// end closes the gzip member (a last empty block, the CRC and the length),
// so the browser sees a complete response, not a broken one.
func (g *sharedStream) end() {
	if g.gzip {
		var tail bytes.Buffer
		_ = flate.StatelessDeflate(&tail, nil, true, nil)
		tail.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, g.crc), g.size))
		if _, err := g.w.Write(tail.Bytes()); err == nil {
			_ = g.rc.Flush()
		}
	}
}
