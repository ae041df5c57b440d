package fanout

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http/httptest"
	"testing"
)

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
	g, err := startShared(rec, req)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, p := range parts {
		c, err := newChunk(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.send(c); err != nil {
			t.Fatal(err)
		}
		want = append(want, p...)
	}
	g.end()
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
