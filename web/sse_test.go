package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/starfederation/datastar-go/datastar"
	"github.com/windowlab/playground/internal/webtest"
)

// stream runs send as an SSE handler through httptest and returns the events.
func stream(t *testing.T, send func(sse *datastar.ServerSentEventGenerator) error) []webtest.Event {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse := datastar.NewSSE(w, r)
		if err := send(sse); err != nil {
			t.Errorf("send: %v", err)
		}
	}))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got := res.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type = %q", got)
	}
	return webtest.ParseEvents(t, res.Body)
}

func TestSSEEvents(t *testing.T) {
	tests := []struct {
		name string
		send func(sse *datastar.ServerSentEventGenerator) error
		want webtest.Event
	}{
		{
			name: "fragment with an id",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return MergeFragments(sse, `<p id="x">hi</p>`)
			},
			want: webtest.Event{Name: "datastar-merge-fragments", Data: []string{`fragments <p id="x">hi</p>`}},
		},
		{
			name: "multi-line fragment keeps every line, drops carriage returns",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return MergeFragments(sse, "<ul id=\"l\">\r\n  <li>one</li>\n\n  <li>two</li>\r\n</ul>")
			},
			want: webtest.Event{Name: "datastar-merge-fragments", Data: []string{
				`fragments <ul id="l">`,
				`fragments   <li>one</li>`,
				`fragments `,
				`fragments   <li>two</li>`,
				`fragments </ul>`,
			}},
		},
		{
			name: "fragment options",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return MergeFragments(sse, "<li>new</li>",
					WithSelector("#log > ul"), WithMergeMode(MergeAppend))
			},
			want: webtest.Event{Name: "datastar-merge-fragments", Data: []string{
				"selector #log > ul",
				"mergeMode append",
				"fragments <li>new</li>",
			}},
		},
		{
			name: "morph is the default and is not sent",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return MergeFragments(sse, `<p id="x"></p>`, WithMergeMode(MergeMorph))
			},
			want: webtest.Event{Name: "datastar-merge-fragments", Data: []string{`fragments <p id="x"></p>`}},
		},
		{
			name: "component",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				c := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
					_, err := io.WriteString(w, "<div id=\"c\">\n<b>bold</b>\n</div>")
					return err
				})
				return MergeComponent(sse, c, WithSelector("#list"), WithMergeMode(MergeAppend))
			},
			want: webtest.Event{Name: "datastar-merge-fragments", Data: []string{
				"selector #list",
				"mergeMode append",
				`fragments <div id="c">`,
				"fragments <b>bold</b>",
				"fragments </div>",
			}},
		},
		{
			name: "signals",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return MergeSignals(sse, []byte(`{"limit":5,"policy":"gcra"}`), false)
			},
			want: webtest.Event{Name: "datastar-merge-signals", Data: []string{`signals {"limit":5,"policy":"gcra"}`}},
		},
		{
			name: "signals only if missing, indented JSON",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return MergeSignals(sse, []byte("{\n  \"limit\": 5\n}"), true)
			},
			want: webtest.Event{Name: "datastar-merge-signals", Data: []string{
				"onlyIfMissing true",
				"signals {",
				`signals   "limit": 5`,
				"signals }",
			}},
		},
		{
			name: "remove fragments",
			send: func(sse *datastar.ServerSentEventGenerator) error {
				return RemoveFragments(sse, "#toast")
			},
			want: webtest.Event{Name: "datastar-remove-fragments", Data: []string{"selector #toast"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stream(t, tt.send)
			if len(got) != 1 {
				t.Fatalf("got %d events, want 1: %q", len(got), got)
			}
			if got[0].Name != tt.want.Name {
				t.Errorf("event = %q, want %q", got[0].Name, tt.want.Name)
			}
			if !slices.Equal(got[0].Data, tt.want.Data) {
				t.Errorf("data lines:\n got %q\nwant %q", got[0].Data, tt.want.Data)
			}
		})
	}
}

// TestNewSSEEndsOnShutdown checks that a stream opened with Server.NewSSE
// ends when EndStreams is called, as http.Server.Shutdown does through
// RegisterOnShutdown.
func TestNewSSEEndsOnShutdown(t *testing.T) {
	s, _, _ := newTestServer(t)
	started := make(chan struct{})
	ended := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse, done := s.NewSSE(w, r)
		defer done()
		close(started)
		<-sse.Context().Done()
		close(ended)
	}))
	defer srv.Close()
	go func() {
		res, err := http.Get(srv.URL)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s within 5 s", what)
		}
	}
	wait(started, "the handler did not start")
	s.EndStreams()
	wait(ended, "EndStreams did not end the stream")
}
