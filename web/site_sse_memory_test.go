package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	webplay "github.com/windowlab/playground/web/play"
)

// browserAcceptEncoding is what Chrome and Firefox send; datastar-go's own
// choice for it is brotli, at 13-18 MB per stream.
const browserAcceptEncoding = "gzip, deflate, br, zstd"

// maxStreamBytes is outcome 5 of issue 8: a stream costs under 1 MB.
const maxStreamBytes = 1 << 20

// TestStreamMemory opens 100 /play streams as a browser would and measures
// how much the heap grows per open stream once each has had its first
// render. The heap includes the client's side of each connection, so the
// figure overstates the server's cost a little.
func TestStreamMemory(t *testing.T) {
	const streams = 100
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, webplay.Playground(store))
	ids := make([]string, streams)
	for i := range ids {
		sess, err := store.New(scenario.Scenario{})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = sess.ID()
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxConnsPerHost: streams + 10}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	before := heapAfterGC()
	// One at a time: a hundred first renders at once take long on a
	// shared machine under the race detector, and only the open streams'
	// memory is measured.
	bodies := make([]io.ReadCloser, 0, streams)
	defer func() {
		for _, b := range bodies {
			b.Close()
		}
	}()
	for i, id := range ids {
		body, err := openFirstRender(ctx, client, url+"/play/"+id+"/stream")
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		bodies = append(bodies, body)
	}
	after := heapAfterGC()
	perStream := (int64(after) - int64(before)) / streams
	t.Logf("heap growth per open stream: %d KB (%d streams)", perStream>>10, streams)
	if perStream >= maxStreamBytes {
		t.Errorf("an open stream costs %d KB of heap, want under %d KB", perStream>>10, maxStreamBytes>>10)
	}
}

// openFirstRender opens a stream, checks that it is gzip-compressed, reads
// it until its first render is complete, and returns its body still open.
func openFirstRender(ctx context.Context, client *http.Client, url string) (io.ReadCloser, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", browserAcceptEncoding)
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if enc := res.Header.Get("Content-Encoding"); enc != "gzip" {
		res.Body.Close()
		return nil, &streamError{"Content-Encoding = " + enc + ", want gzip"}
	}
	// Read the compressed bytes until the decompressed text holds the last
	// region of the first render; then stop reading, so what stays in the
	// heap is the open connection, not a decompressor.
	var raw bytes.Buffer
	buf := make([]byte, 4096)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n, err := res.Body.Read(buf)
		raw.Write(buf[:n])
		if strings.Contains(gunzipPrefix(raw.Bytes()), `id="play-share"`) {
			return res.Body, nil
		}
		if err != nil {
			res.Body.Close()
			return nil, err
		}
	}
	res.Body.Close()
	return nil, &streamError{"no first render within 20 s"}
}

// gunzipPrefix decompresses as much of a gzip stream as has arrived.
func gunzipPrefix(b []byte) string {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	out, _ := io.ReadAll(zr) // an unexpected EOF is expected: the stream is open
	return string(out)
}

type streamError struct{ msg string }

func (e *streamError) Error() string { return e.msg }

func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
