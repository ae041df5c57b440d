package webtest

import (
	"fmt"
	"strings"
	"testing"
)

func TestEventScanner(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []Event
		err        string
	}{
		{name: "two events, retry and id ignored",
			body: "retry: 1000\nevent: a\ndata: x 1\ndata: x 2\n\nid: 7\nevent: b\n\n",
			want: []Event{{"a", []string{"x 1", "x 2"}}, {"b", nil}}},
		{name: "blank lines between events", body: "\n\nevent: a\n\n\n", want: []Event{{"a", nil}}},
		{name: "cut inside an event", body: "event: a\ndata: x\n", want: nil, err: `stream ended inside event "a"`},
		{name: "a stray line", body: "event: a\nnonsense\n\n", want: nil, err: `unexpected line in the stream: "nonsense"`},
	} {
		s := NewEventScanner(strings.NewReader(c.body))
		var got []Event
		var err error
		for {
			ev, ok, e := s.Next()
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
