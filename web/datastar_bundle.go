package web

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// embeddedBundlePath is where `npm ci` (its postinstall script,
// scripts/vendor-datastar.mjs) copies the pinned Datastar bundle inside the
// embedded static directory. It sits in a subdirectory so that the static
// file table, which takes only the top level, does not serve it twice.
const embeddedBundlePath = "static/vendor/datastar.js"

// errNoEmbeddedBundle says how to get a binary that carries the bundle. The
// embed pattern names the whole static directory, so a build without the
// bundle still compiles; the server then refuses to start with this message
// rather than serving pages that never become interactive.
var errNoEmbeddedBundle = errors.New("web: this binary was built without the Datastar bundle: run `npm ci` in the project directory (it copies the bundle to web/static/vendor/datastar.js) and build again, or pass -datastar with the path of datastar.js")

// readDatastarBundle returns the bundle at path, or the one built into the
// binary when path is empty.
func readDatastarBundle(static fs.FS, path string) ([]byte, error) {
	if path == "" {
		body, err := fs.ReadFile(static, embeddedBundlePath)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNoEmbeddedBundle
		}
		if err != nil {
			return nil, fmt.Errorf("web: reading the built-in Datastar bundle: %w", err)
		}
		return body, nil
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("web: reading the Datastar bundle (run `npm ci` in the project directory to install it): %w", err)
	}
	return body, nil
}
