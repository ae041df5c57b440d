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
	if ext == ".css" {
		body = trimCSS(body)
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

// trimCSS drops a stylesheet's comments and its lines' indentation and
// blank lines: they are for whoever edits it, and were a quarter of the
// stylesheets /play loads. A string is kept as written ("/*" in one is not
// a comment); a comment between two tokens leaves a space, so that it
// still separates them.
func trimCSS(src []byte) []byte {
	out := make([]byte, 0, len(src))
	lineStart := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			out = append(out, src[i:j+1]...)
			i, lineStart = j, false
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return out // an unclosed comment runs to the end, as browsers read it
			}
			i += 2 + end + 1
			if next := i + 1; !lineStart && next < len(src) && !isCSSSpace(src[next]) && !isCSSSpace(out[len(out)-1]) {
				out = append(out, ' ')
			}
		case c == '\n':
			if !lineStart {
				out = append(out, '\n')
			}
			lineStart = true
		case lineStart && isCSSSpace(c):
		default:
			out = append(out, c)
			lineStart = false
		}
	}
	return out
}

func isCSSSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' }

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
