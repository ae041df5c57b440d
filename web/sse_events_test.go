package web

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
)

// event is one server-sent event as the browser sees it.
type event struct {
	name string
	data []string // the value of each data: line, in order
}

// eventScanner reads server-sent events one at a time: the one parser of
// the web tests, for a whole response and for a stream that stays open.
type eventScanner struct {
	sc *bufio.Scanner
}

func newEventScanner(body io.Reader) *eventScanner {
	sc := bufio.NewScanner(body)
	// A first render of seven busy lanes sends lines far longer than
	// bufio's default 64 KB token.
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	return &eventScanner{sc: sc}
}

// next returns the next event. At the end of the body it returns false
// and a nil error, or an error when the body ended inside an event or held
// a line that is no part of the protocol.
func (s *eventScanner) next() (event, bool, error) {
	var cur event
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if cur.name != "" || cur.data != nil {
				return cur, true, nil
			}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = append(cur.data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, "retry: "), strings.HasPrefix(line, "id: "):
		default:
			return event{}, false, fmt.Errorf("unexpected line in the stream: %q", line)
		}
	}
	if err := s.sc.Err(); err != nil {
		return event{}, false, err
	}
	if cur.name != "" || cur.data != nil {
		return event{}, false, fmt.Errorf("stream ended inside event %q", cur.name)
	}
	return event{}, false, nil
}

// parseEvents reads a complete text/event-stream body into events.
func parseEvents(t testing.TB, body io.Reader) []event {
	t.Helper()
	var events []event
	s := newEventScanner(body)
	for {
		ev, ok, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return events
		}
		events = append(events, ev)
	}
}

func TestEventScanner(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []event
		err        string
	}{
		{name: "two events, retry and id ignored",
			body: "retry: 1000\nevent: a\ndata: x 1\ndata: x 2\n\nid: 7\nevent: b\n\n",
			want: []event{{"a", []string{"x 1", "x 2"}}, {"b", nil}}},
		{name: "blank lines between events", body: "\n\nevent: a\n\n\n", want: []event{{"a", nil}}},
		{name: "cut inside an event", body: "event: a\ndata: x\n", want: nil, err: `stream ended inside event "a"`},
		{name: "a stray line", body: "event: a\nnonsense\n\n", want: nil, err: `unexpected line in the stream: "nonsense"`},
	} {
		s := newEventScanner(strings.NewReader(c.body))
		var got []event
		var err error
		for {
			ev, ok, e := s.next()
			if e != nil || !ok {
				err = e
				break
			}
			got = append(got, ev)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: events %q, want %q", c.name, got, c.want)
		}
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}
