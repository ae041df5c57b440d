package redistest_test

import (
	"context"
	"testing"

	"github.com/windowlab/playground/internal/redistest"
)

func TestStartServesAndStopEnds(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	// No persistence: the server was started with no save points and no
	// append-only file.
	cfg, err := rdb.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatalf("CONFIG GET: %v", err)
	}
	if cfg["save"] != "" || cfg["appendonly"] != "no" || cfg["bind"] != "127.0.0.1" {
		t.Fatalf("save = %q, appendonly = %q, bind = %q; want \"\", \"no\", \"127.0.0.1\"", cfg["save"], cfg["appendonly"], cfg["bind"])
	}
	other := redistest.Start(t)
	if other.Addr == srv.Addr {
		t.Fatalf("two servers share %s", srv.Addr)
	}
	srv.Stop()
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING after Stop succeeded, want an error")
	}
	srv.Stop() // a second Stop is harmless
	if err := other.Client(t).Ping(ctx).Err(); err != nil {
		t.Fatalf("the other server: %v", err)
	}
}
