package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

// downloadServer is a one-slot server whose session store the test holds.
func downloadServer(t *testing.T) (*web.Server, string, *play.Store) {
	t.Helper()
	store := play.NewStore(nil)
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), RunSlots: 1, Features: []web.Feature{simulate.API(), webplay.Playground(store)}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL, store
}

// A reviewer clicked a session's JSON download, aborted it, and at once
// downloaded the CSV: 1 in 12 came back 503 on an idle server, because a
// download reserved a worst-case slot before looking at its size. A small
// session's download is now served even with every slot taken.
func TestSmallDownloadsAreNeverRefusedForCapacity(t *testing.T) {
	s, base, store := downloadServer(t)
	sess := webtest.CarParkSession(t, store, 36)
	if w := web.RunWork(sess.Scenario()); w > web.SmallRunWork {
		t.Fatalf("the car park's work is %d, more than a small run's %d: pick a smaller session", w, web.SmallRunWork)
	}
	release, ok := s.TakeRunSlots(web.MaxRunWork)
	if !ok {
		t.Fatal("an idle server has no room for one worst-case run")
	}
	defer release()
	for round := range 12 {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/play/"+sess.ID()+"/decisions.json", nil)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			if res.StatusCode != http.StatusOK {
				t.Errorf("round %d: decisions.json = %d, want 200", round, res.StatusCode)
			}
			res.Body.Close() // unread: an aborted download
		}
		cancel()
		res, err = http.Get(base + "/play/" + sess.ID() + "/decisions.csv")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("round %d: decisions.csv right after an aborted download = %d (%s), want 200", round, res.StatusCode, body)
		}
	}
}

// A larger download takes its share of the slot, and gives it back soon
// after its client leaves mid-answer.
func TestAbortedDownloadFreesItsShare(t *testing.T) {
	s, base, store := downloadServer(t)
	sc := scenario.Scenario{Limit: 100, WindowMs: 60_000, Policies: scenario.DefaultPolicies()}
	for i := range 5000 {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(i), Key: "k", Cost: 1, Count: 1})
	}
	sess, err := store.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	if web.RunWork(sess.Scenario()) <= web.SmallRunWork {
		t.Fatal("the session is small; this test needs one that takes a share of the slot")
	}
	started := make(chan struct{}, 1)
	s.SetRunStarting(func() { started <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/play/"+sess.ID()+"/decisions.csv", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if _, ok := s.TakeRunSlots(web.MaxRunWork); ok {
		t.Fatal("a worst-case run was admitted beside a 20,000-decision download on one slot")
	}
	if _, err := io.ReadFull(res.Body, make([]byte, 1024)); err != nil {
		t.Fatalf("reading the first row: %v", err)
	}
	cancel()
	res.Body.Close()
	waitFor(t, 2*time.Second, "the aborted download to free its share", func() bool {
		release, ok := s.TakeRunSlots(web.MaxRunWork)
		if ok {
			release()
		}
		return ok
	})
}
