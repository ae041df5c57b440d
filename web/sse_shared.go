package web

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net/http"

	"github.com/klauspost/compress/flate"
)

// A room's stream sends the same bytes to every follower, so its events are
// encoded once (EncodeFragments) and, for a follower that accepts gzip,
// compressed once (compressChunk): SharedStream then writes those bytes after
// the follower's own gzip header and keeps only its CRC and length.

// EncodeFragments is MergeFragments written into bytes instead of onto one
// stream: the same event (TestEncodeFragmentsMatchesMergeFragments holds the
// two together).
func EncodeFragments(buf *bytes.Buffer, html string, opts ...FragmentOption) {
	lines := fragmentLines(html, opts)
	buf.WriteString("event: " + string(EventMergeFragments) + "\n")
	for _, l := range lines {
		buf.WriteString("data: " + l + "\n")
	}
	buf.WriteString("\n\n") // as datastar-go ends an event: one blank line more than needed
}

// compressChunk deflates raw on its own, with no reference to anything sent
// before, ending on a byte boundary: any number of such chunks, in any
// order, make a valid deflate stream, so one chunk serves every follower.
func compressChunk(raw []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := flate.StatelessDeflate(&out, raw, false, nil); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// gzipHeader is a gzip member's header with no name, time or extra fields
// (RFC 1952: deflate, unknown OS).
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// SharedStream is one follower's gzip stream made of shared chunks: what it
// holds of its own is a checksum and a length, a dozen bytes.
type SharedStream struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	crc  uint32
	size uint32
	gzip bool
}

// StartSharedStream writes an event stream's headers (and gzip's, when the
// follower accepts it) and flushes them.
func StartSharedStream(w http.ResponseWriter, r *http.Request) (*SharedStream, error) {
	g := &SharedStream{w: w, rc: http.NewResponseController(w), gzip: acceptsGzip(r)}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	if r.ProtoMajor == 1 {
		h.Set("Connection", "keep-alive")
	}
	if g.gzip {
		h.Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(http.StatusOK)
	if g.gzip {
		if _, err := w.Write(gzipHeader); err != nil {
			return nil, err
		}
	}
	return g, g.rc.Flush()
}

// send writes one update: its compressed chunk to a gzip follower, its raw
// bytes to any other.
func (g *SharedStream) Send(c *Chunk) error {
	data := c.raw
	if g.gzip {
		data = c.gz
		g.crc = crc32.Update(g.crc, crc32.IEEETable, c.raw)
		g.size += uint32(len(c.raw)) // gzip's ISIZE is the length modulo 2³²
	}
	if _, err := g.w.Write(data); err != nil {
		return err
	}
	return g.rc.Flush()
}

// end closes the gzip member (a final empty block, the CRC and the length),
// so the browser sees a complete response rather than a broken one.
func (g *SharedStream) End() {
	if !g.gzip {
		return
	}
	var tail bytes.Buffer
	_ = flate.StatelessDeflate(&tail, nil, true, nil)
	tail.Write(binary.LittleEndian.AppendUint32(nil, g.crc))
	tail.Write(binary.LittleEndian.AppendUint32(nil, g.size))
	if _, err := g.w.Write(tail.Bytes()); err == nil {
		_ = g.rc.Flush()
	}
}

// chunk is one update's bytes: the SSE events, and the same compressed.
type Chunk struct {
	raw, gz []byte
}

func NewChunk(raw []byte) (*Chunk, error) {
	gz, err := compressChunk(raw)
	if err != nil {
		return nil, err
	}
	return &Chunk{raw: raw, gz: gz}, nil
}
