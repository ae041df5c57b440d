package traffic

import (
	"fmt"
	"slices"
)

// Request is one line of a log as the replay needs it: 16 bytes.
type Request struct {
	At     int64  // ms since the Unix epoch
	Client uint32 // the key, interned by Clients
	Cost   uint32 // permits; 1 unless the log gives one
}

// Bounds on what one log may make the reader hold.
const (
	// MaxClients bounds the distinct keys; a line with a new key past it
	// is unreadable. Per-client counts cost about 40 bytes each per lane.
	MaxClients = 1 << 20
	// MaxKeyBytes bounds one key; a longer key makes its line unreadable.
	MaxKeyBytes = 256
	// MaxLineBytes bounds one line (one HAR entry); a longer one is unreadable.
	MaxLineBytes = 64 << 10
	// ChunkRequests is how many requests the reader hands the lanes at once.
	ChunkRequests = 16 << 10
	// ShownUnreadable is how many unreadable lines a summary quotes.
	ShownUnreadable = 5
)

// Clients interns keys to numbers from 0, in order of first appearance,
// and counts each client's requests and its peak: the most requests it
// sent in one window (aligned to the epoch, as fixed-window's are).
type Clients struct {
	ids      map[string]uint32
	names    []string
	requests []int64
	peak     []int64
	window   []int64 // the window of the count below
	count    []int64
	windowMs int64
}

// NewClients interns keys, measuring peaks over windows of windowMs.
func NewClients(windowMs int64) *Clients {
	return &Clients{ids: map[string]uint32{}, windowMs: max(windowMs, 1)}
}

// intern returns key's number, adding it if new; ok is false once
// MaxClients keys are held and key is not one of them. Looking up a
// []byte converted in the index expression does not allocate.
func (c *Clients) intern(key []byte) (uint32, bool) {
	if id, ok := c.ids[string(key)]; ok {
		return id, true
	}
	if len(c.names) >= MaxClients {
		return 0, false
	}
	id := uint32(len(c.names))
	name := string(key)
	c.ids[name] = id
	c.names = append(c.names, name)
	c.requests = append(c.requests, 0)
	c.peak = append(c.peak, 0)
	c.window = append(c.window, 0)
	c.count = append(c.count, 0)
	return id, true
}

// count records one request of client id at at.
func (c *Clients) record(id uint32, at int64) {
	c.requests[id]++
	w := at / c.windowMs
	if w != c.window[id] {
		c.window[id], c.count[id] = w, 0
	}
	c.count[id]++
	c.peak[id] = max(c.peak[id], c.count[id])
}

// Len is how many distinct clients have been seen.
func (c *Clients) Len() int { return len(c.names) }

// Name is client id's key.
func (c *Clients) Name(id uint32) string { return c.names[id] }

// ID is key's number, if the key was seen.
func (c *Clients) ID(key string) (uint32, bool) {
	id, ok := c.ids[key]
	return id, ok
}

// Requests is how many requests client id sent.
func (c *Clients) Requests(id uint32) int64 { return c.requests[id] }

// Peak is the most requests client id sent in one window.
func (c *Clients) Peak(id uint32) int64 { return c.peak[id] }

// Trace is a whole log held in memory as chunks of requests, for what must
// replay it more than once (--fit, the page's sweeps and lanes): 16 bytes a
// request.
type Trace struct {
	Summary Summary
	Clients *Clients
	Chunks  [][]Request
}

// Len is how many requests the trace holds.
func (t *Trace) Len() int {
	n := 0
	for _, c := range t.Chunks {
		n += len(c)
	}
	return n
}

// Of returns client id's requests, in log order.
func (t *Trace) Of(id uint32) []Request {
	var out []Request
	for _, c := range t.Chunks {
		for _, r := range c {
			if r.Client == id {
				out = append(out, r)
			}
		}
	}
	return out
}

// Load reads a whole log into a Trace of at most maxRequests requests (0:
// no bound); a longer log is an error naming the bound.
func Load(src Source, opts Options, maxRequests int) (*Trace, error) {
	t := &Trace{}
	total := 0
	sum, clients, err := Read(src, opts, func(chunk []Request, _ *Clients) error {
		total += len(chunk)
		if maxRequests > 0 && total > maxRequests {
			return fmt.Errorf("%w: the log holds more than %d requests", ErrTooLarge, maxRequests)
		}
		t.Chunks = append(t.Chunks, slices.Clone(chunk))
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.Summary, t.Clients = sum, clients
	return t, nil
}
