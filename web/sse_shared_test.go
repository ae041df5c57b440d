package web

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/starfederation/datastar-go/datastar"
)

// EncodeFragments must write exactly what MergeFragments sends on a stream,
// so the room's shared bytes speak the same protocol as every other page.
func TestEncodeFragmentsMatchesMergeFragments(t *testing.T) {
	for _, tc := range []struct {
		name string
		html string
		opts []FragmentOption
	}{
		{"one line", `<p id="a">x</p>`, nil},
		{"lines and a carriage return", "<div id=\"b\">\r\n<p>1</p>\n</div>", nil},
		{"selector and mode", `<figure id="lane-3"></figure>`, []FragmentOption{WithSelector("#list"), WithMergeMode(MergeAppend)}},
	} {
		rec := httptest.NewRecorder()
		sse := datastar.NewSSE(rec, httptest.NewRequest("GET", "/", nil))
		if err := MergeFragments(sse, tc.html, tc.opts...); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		EncodeFragments(&got, tc.html, tc.opts...)
		if got.String() != rec.Body.String() {
			t.Errorf("%s: EncodeFragments wrote\n%q\nMergeFragments sent\n%q", tc.name, got.String(), rec.Body.String())
		}
	}
}

// Chunks compressed one by one, each on its own, make one gzip stream that
// a standard reader decodes to their concatenation, with the trailer's CRC
// and length checked.
func TestSharedGzipChunksConcatenate(t *testing.T) {
	parts := [][]byte{
		[]byte("event: one\ndata: x\n\n"),
		bytes.Repeat([]byte("data: the same line again and again\n"), 4000), // more than one deflate block
		[]byte("event: three\n\n"),
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	g, err := StartSharedStream(rec, req)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, p := range parts {
		c, err := NewChunk(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Send(c); err != nil {
			t.Fatal(err)
		}
		want = append(want, p...)
	}
	g.End()
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding = %q, want gzip", rec.Header().Get("Content-Encoding"))
	}
	body := rec.Body.Bytes()
	if got := binary.LittleEndian.Uint32(body[len(body)-8:]); got != crc32.ChecksumIEEE(want) {
		t.Errorf("trailer CRC = %08x, want %08x", got, crc32.ChecksumIEEE(want))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("decoding the shared chunks: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("decoded %d bytes, want the %d sent", len(got), len(want))
	}
}
