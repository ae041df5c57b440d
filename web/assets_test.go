package web

import (
	"bytes"
	"io/fs"
	"path"
	"testing"
)

// The project's stylesheets and scripts are served minified, without the
// comments that explain them to an editor; every other file, and the
// Datastar bundle, as it is.
func TestStaticFilesAreServedMinified(t *testing.T) {
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		t.Fatal(err)
	}
	assets := newAssetTable()
	if err := assets.addFS(static); err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(static, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		src, err := fs.ReadFile(static, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		a, ok := assets.byName[e.Name()]
		if !ok {
			t.Errorf("%s: not registered", e.Name())
			continue
		}
		switch path.Ext(e.Name()) {
		case ".css", ".js":
			if len(a.body) >= len(src) {
				t.Errorf("%s: served %d bytes of a %d-byte source, want fewer", e.Name(), len(a.body), len(src))
			}
			if bytes.Contains(src, []byte("/*")) && bytes.Contains(a.body, []byte("/*")) {
				t.Errorf("%s: served with a comment still in it", e.Name())
			}
		default:
			if !bytes.Equal(a.body, src) {
				t.Errorf("%s: served changed, want it as it is", e.Name())
			}
		}
	}
}

// A stylesheet that cannot be read is a start-up error naming the file,
// not a page served without its styles.
func TestMinifiedNamesAFileItCannotRead(t *testing.T) {
	if _, err := minified("broken.js", []byte("function (")); err == nil || !bytes.Contains([]byte(err.Error()), []byte("broken.js")) {
		t.Errorf("minified(broken.js) = %v, want an error naming the file", err)
	}
	if out, err := minified("icon.svg", []byte("<svg/>")); err != nil || string(out) != "<svg/>" {
		t.Errorf("minified(icon.svg) = %q, %v; want it as it is", out, err)
	}
}
