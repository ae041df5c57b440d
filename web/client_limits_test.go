package web

import "testing"

func TestClientLimitsBuild(t *testing.T) {
	l := newClientLimits()
	for name, c := range map[string]*clientLimit{"join": l.join, "pair": l.pair, "answer": l.answer, "rooms": l.rooms, "sessions": l.sessions, "simulate": l.simulate} {
		if c == nil || c.cur.Load() == nil {
			t.Errorf("limit %s was not built", name)
		}
	}
}
