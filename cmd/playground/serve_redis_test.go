package main

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/play"
)

func TestServeRejectsABadRedisURL(t *testing.T) {
	code, _, errOut := runCmd(t, "", "serve", "-addr", "127.0.0.1:0", "-memory", "-redis", "localhost:6379")
	if code != 2 || !strings.Contains(errOut, `-redis: "localhost:6379" is not a Redis URL (want redis://host:port/db)`) {
		t.Fatalf("serve -redis localhost:6379: exit %d, %q; want 2 and the flag named", code, errOut)
	}
}

// serve -redis draws a Redis row under each of /play's lanes; a Redis that
// does not answer at start is said, and the server starts all the same.
func TestServeRedisDrawsARowUnderEachLane(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		stop       bool
	}{
		{"answering", "Redis: no requests yet.", false},
		{"not answering", "Redis unavailable: the server cannot reach Redis", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			if tc.stop {
				srv.Stop()
			}
			url, _ := startServe(t, "-addr", "127.0.0.1:0", "-datastar", testBundle, "-memory", "-redis", "redis://"+srv.Addr)
			page := httpGet(t, url+"/play")
			lanes := len(play.DefaultScenario().Policies)
			if n := strings.Count(page, `data-testid="redis-lane"`); n != lanes {
				t.Errorf("/play has %d Redis rows, want one under each of its %d lanes", n, lanes)
			}
			if n := strings.Count(page, `data-testid="redis-status">`+tc.want); n != lanes {
				t.Errorf("/play's Redis lines say %q %d times, want %d", tc.want, n, lanes)
			}
		})
	}
}
