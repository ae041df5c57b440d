package traffic

import (
	"os"
	"testing"

	"github.com/windowlab/playground/internal/browsertest"
)

// TestMain stops the browser that the browser tests of this package share.
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}
