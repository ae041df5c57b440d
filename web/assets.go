package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"
)

// asset is one static file held in memory and served under a name that
// carries a hash of its content, so browsers may cache it forever.
type asset struct {
	name        string // plain name, as templates ask for it: "app.css"
	hashedName  string // "app.3f2a9c1e.css"
	contentType string
	body        []byte
	gzipped     []byte // body compressed, when that is smaller; else nil
}

// assetTable serves the static files. It implements templates.Assets.
type assetTable struct {
	byName   map[string]*asset
	byHashed map[string]*asset
}

func newAssetTable() *assetTable {
	return &assetTable{byName: map[string]*asset{}, byHashed: map[string]*asset{}}
}

// add registers a file; its hashed name is derived from body.
func (t *assetTable) add(name string, body []byte) error {
	if _, dup := t.byName[name]; dup {
		return fmt.Errorf("web: static file %q registered twice", name)
	}
	ext := path.Ext(name)
	ctype := mime.TypeByExtension(ext)
	switch ext {
	case ".js":
		// The Datastar bundle holds non-ASCII characters; some systems' MIME
		// tables say application/javascript without a charset.
		ctype = "text/javascript; charset=utf-8"
	case ".css":
		ctype = "text/css; charset=utf-8"
	}
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	sum := sha256.Sum256(body)
	a := &asset{
		name:        name,
		hashedName:  strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:4]) + ext,
		contentType: ctype,
		body:        body,
		gzipped:     gzipIfSmaller(body),
	}
	t.byName[name] = a
	t.byHashed[a.hashedName] = a
	return nil
}

// minifier shrinks the project's own stylesheets and scripts as they are
// registered: their comments and layout are for whoever edits them (a
// quarter of what /play loads) and browsers need none of it. The Datastar
// bundle comes minified and is registered as it is.
var minifier = func() *minify.M {
	m := minify.New()
	m.AddFunc(".css", css.Minify)
	m.AddFunc(".js", js.Minify)
	return m
}()

// minified is body as served: minified for a stylesheet or a script, as it
// is for anything else.
func minified(name string, body []byte) ([]byte, error) {
	ext := path.Ext(name)
	if ext != ".css" && ext != ".js" {
		return body, nil
	}
	out, err := minifier.Bytes(ext, body)
	if err != nil {
		return nil, fmt.Errorf("web: minifying static file %q: %w", name, err)
	}
	return out, nil
}

// addFS registers every regular file at the top of fsys.
func (t *assetTable) addFS(fsys fs.FS) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("web: reading static files: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return fmt.Errorf("web: reading static file: %w", err)
		}
		if body, err = minified(e.Name(), body); err != nil {
			return err
		}
		if err := t.add(e.Name(), body); err != nil {
			return err
		}
	}
	return nil
}

// URL returns the hashed URL of a static file. An unknown name yields a URL
// that answers 404, so a typo shows in the browser's network log rather than
// breaking the page.
func (t *assetTable) URL(name string) string {
	if a, ok := t.byName[name]; ok {
		return "/static/" + a.hashedName
	}
	return "/static/" + name
}

// serve answers /static/{file}.
func (t *assetTable) serve(notFound http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, ok := t.byHashed[chi.URLParam(r, "file")]
		if !ok {
			notFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Add("Vary", "Accept-Encoding")
		body, etag := a.body, `"`+a.hashedName+`"`
		if a.gzipped != nil && AcceptsGzip(r) {
			body, etag = a.gzipped, `"`+a.hashedName+`.gz"`
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("ETag", etag)
		http.ServeContent(w, r, a.hashedName, time.Time{}, bytes.NewReader(body))
	}
}

// gzipIfSmaller compresses body once at startup (the Datastar bundle shrinks
// from about 40 KB to 15 KB), or returns nil when that does not help.
func gzipIfSmaller(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
	if _, err := zw.Write(body); err != nil {
		return nil
	}
	if err := zw.Close(); err != nil {
		return nil
	}
	if buf.Len() >= len(body)*9/10 {
		return nil
	}
	return buf.Bytes()
}

// AcceptsGzip reports whether the request's Accept-Encoding allows gzip.
func AcceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			return strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0"
		}
	}
	return false
}
