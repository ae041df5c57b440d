package web

import (
	"log/slog"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
)

func TestPublicURLReachesFeatures(t *testing.T) {
	s, err := New(Config{DatastarPath: webtest.BundlePath(t), PublicURL: "http://192.168.1.20:8080"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.PublicURL(); got != "http://192.168.1.20:8080" {
		t.Errorf("PublicURL() = %q, want the configured http://192.168.1.20:8080", got)
	}
}
