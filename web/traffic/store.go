package traffic

import (
	"sync"
	"time"

	"github.com/windowlab/playground/traffic"
)

// Bounds on what uploads may hold. A 50 MB combined log is about 400,000
// lines, a trace of 6.4 MB plus a bit per request per policy; eight held at
// once is under 100 MB with their clients.
const (
	// MaxUploadBytes bounds one upload's body, the log and the form.
	MaxUploadBytes = 50 << 20
	// MaxRequests bounds one log's requests (a 50 MB gzip file may hold
	// more lines than 50 MB of text).
	MaxRequests = 1_000_000
	// MaxHeld is how many visitors' logs are held at once; an upload past
	// it drops the one used longest ago.
	MaxHeld = 8
	// HeldFor is how long a log is kept after its visitor last looked.
	HeldFor = 30 * time.Minute
	// MaxParsing bounds uploads being parsed at once.
	MaxParsing = 2
)

// upload is one visitor's log and what was computed from it once.
type upload struct {
	trace    *traffic.Trace
	set      traffic.Settings
	report   traffic.Report
	sweep    traffic.SweepReport
	outcomes [][]uint64 // per policy, a bit per request
	used     time.Time
}

// store holds uploads by visitor, in memory only.
type store struct {
	mu      sync.Mutex
	uploads map[string]*upload
	now     func() time.Time
	parsing chan struct{}
}

func newStore(now func() time.Time) *store {
	return &store{uploads: map[string]*upload{}, now: now, parsing: make(chan struct{}, MaxParsing)}
}

// get returns the visitor's upload, marking it used.
func (s *store) get(visitor string) *upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	u := s.uploads[visitor]
	if u != nil {
		u.used = s.now()
	}
	return u
}

// put keeps the visitor's upload, replacing theirs and dropping the one
// used longest ago when MaxHeld are held.
func (s *store) put(visitor string, u *upload) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	delete(s.uploads, visitor)
	for len(s.uploads) >= MaxHeld {
		var oldest string
		for id, v := range s.uploads {
			if oldest == "" || v.used.Before(s.uploads[oldest].used) {
				oldest = id
			}
		}
		delete(s.uploads, oldest)
	}
	u.used = s.now()
	s.uploads[visitor] = u
}

func (s *store) expire() {
	for id, u := range s.uploads {
		if s.now().Sub(u.used) > HeldFor {
			delete(s.uploads, id)
		}
	}
}

// len is how many uploads are held.
func (s *store) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.uploads)
}
