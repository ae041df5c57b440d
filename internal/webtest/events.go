package webtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Event is one server-sent event as the browser sees it.
type Event struct {
	Name string
	Data []string // the value of each data: line, in order
}

// EventScanner reads server-sent events one at a time: the one parser of
// the web tests, for a whole response and for a stream that stays open.
type EventScanner struct {
	sc *bufio.Scanner
}

func NewEventScanner(body io.Reader) *EventScanner {
	sc := bufio.NewScanner(body)
	// A first render of seven busy lanes sends lines far longer than
	// bufio's default 64 KB token.
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	return &EventScanner{sc: sc}
}

// Next returns the next event. At the end of the body it returns false
// and a nil error, or an error when the body ended inside an event or held
// a line that is no part of the protocol.
func (s *EventScanner) Next() (Event, bool, error) {
	var cur Event
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != nil {
				return cur, true, nil
			}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = append(cur.Data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, "retry: "), strings.HasPrefix(line, "id: "):
		default:
			return Event{}, false, fmt.Errorf("unexpected line in the stream: %q", line)
		}
	}
	if err := s.sc.Err(); err != nil {
		return Event{}, false, err
	}
	if cur.Name != "" || cur.Data != nil {
		return Event{}, false, fmt.Errorf("stream ended inside event %q", cur.Name)
	}
	return Event{}, false, nil
}

// ParseEvents reads a complete text/event-stream body into events.
func ParseEvents(t testing.TB, body io.Reader) []Event {
	t.Helper()
	var events []Event
	s := NewEventScanner(body)
	for {
		ev, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return events
		}
		events = append(events, ev)
	}
}

// StreamRecorder is an http.ResponseWriter for a stream served within a
// testing/synctest bubble: with no socket, every wait of the server's
// goroutines is on the bubble's timers and channels, so the bubble's clock
// moves only when they all wait. Its zero value is not usable: use
// NewStreamRecorder.
type StreamRecorder struct {
	header http.Header
	mu     sync.Mutex
	body   bytes.Buffer
}

// NewStreamRecorder returns an empty StreamRecorder.
func NewStreamRecorder() *StreamRecorder { return &StreamRecorder{header: http.Header{}} }

func (r *StreamRecorder) Header() http.Header { return r.header }
func (r *StreamRecorder) WriteHeader(int)     {}
func (r *StreamRecorder) Flush()              {}

func (r *StreamRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.Write(p)
}

// Events are the events written so far.
func (r *StreamRecorder) Events(t testing.TB) []Event {
	t.Helper()
	r.mu.Lock()
	body := bytes.Clone(r.body.Bytes())
	r.mu.Unlock()
	return ParseEvents(t, bytes.NewReader(body))
}
