package play

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/windowlab/playground/scenario"
)

// TestStoreFloodFromOneAddress floods a store from address A, with every
// one of A's sessions watched and just used, and checks that address B
// still gets sessions, that A never holds more than its cap, and that B's
// sessions are never the ones forgotten to make room for A. The contract
// suite (storetest, "a flood from one client leaves room for others")
// floods with watched sessions and counts A's at the end through Get; this
// one also floods with idle ones and checks Store's own count (Held) after
// every session, which Get, counting as use, could not do unchanged.
func TestStoreFloodFromOneAddress(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	const maxSessions, perClient = 20, 8
	tests := []struct {
		name    string
		watched bool
	}{
		{"idle sessions", false},
		{"watched sessions", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewStoreWithBounds(clock, maxSessions, time.Hour).WithPerClient(perClient)
			var bs []*Session
			for i := range 3 * maxSessions {
				s, err := st.NewFor(context.Background(), "A", scenario.Scenario{})
				if err != nil {
					t.Fatalf("A's session %d: %v", i+1, err)
				}
				if tt.watched {
					_, unsub := watch(t, st, s)
					defer unsub()
				}
				if got := st.Held("A"); got > perClient {
					t.Fatalf("after A's session %d: A holds %d, want at most %d", i+1, got, perClient)
				}
				if i%10 == 9 { // B opens a page now and then during the flood
					b, err := st.NewFor(context.Background(), "B", scenario.Scenario{})
					if err != nil {
						t.Fatalf("B during A's flood (step %d): %v", i+1, err)
					}
					_, unsub := watch(t, st, b)
					defer unsub()
					bs = append(bs, b)
				}
				now = now.Add(time.Second)
			}
			for i, b := range bs {
				if _, err := st.Get(context.Background(), b.ID()); err != nil {
					t.Errorf("B's session %d: %v, want it kept", i+1, err)
				}
			}
		})
	}
}

// TestStoreFullOfManyClientsTakesFromTheLargest fills a store with busy
// clients of different sizes: each newcomer's session is taken from a client
// holding the most, until everyone holds the same share and the store is
// full for good. The contract suite ("a full busy store takes from the
// largest client") checks which sessions remain, on a moving clock; this
// one checks Store's own counts (Len, Held) at every step, with every
// session opened at one instant, so that no recency breaks the ties.
func TestStoreFullOfManyClientsTakesFromTheLargest(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := NewStoreWithBounds(func() time.Time { return now }, 6, time.Hour)
	for i, client := range []string{"big", "big", "big", "big", "small", "small"} {
		if _, err := st.NewFor(context.Background(), client, scenario.Scenario{}); err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
	}
	for i, client := range []string{"new1", "new2", "new3", "new4"} {
		if _, err := st.NewFor(context.Background(), client, scenario.Scenario{}); err != nil {
			t.Fatalf("step %d: NewFor(%q) = %v, want a session taken from the largest client", i+1, client, err)
		}
		if n := st.Len(); n != 6 {
			t.Errorf("step %d: %d sessions, want 6", i+1, n)
		}
	}
	for _, client := range []string{"big", "small", "new1", "new2", "new3", "new4"} {
		if got := st.Held(client); got != 1 {
			t.Errorf("%s holds %d, want 1", client, got)
		}
	}
	if _, err := st.NewFor(context.Background(), "new5", scenario.Scenario{}); !errors.Is(err, ErrFull) {
		t.Errorf("with six clients holding one each, NewFor(new5) = %v, want ErrFull", err)
	}
}
