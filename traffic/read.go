package traffic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/windowlab/playground/scenario"
)

// MaxCost bounds one request's cost, as a scenario's.
const MaxCost = scenario.MaxCost

// Source is a log to read: a name for messages and its bytes, gzip or not.
type Source struct {
	Name string
	R    io.Reader
}

// Open opens a log file, or standard input for "-" or "". The caller
// closes the file.
func Open(path string, stdin io.Reader) (Source, io.Closer, error) {
	if path == "" || path == "-" {
		return Source{Name: "standard input", R: stdin}, io.NopCloser(nil), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Source{}, nil, fmt.Errorf("%w: %v", ErrBadLog, err)
	}
	return Source{Name: path, R: f}, f, nil
}

// Options say how to read a log.
type Options struct {
	Format Format // "": tell from the first line
	Key    Key    // nil: DefaultKey
	// A JSON line's fields (a.b for nested ones): the time (default
	// "time"), the client (default "client"; PartClient) and the cost
	// (default none: every request costs 1).
	TimeField, KeyField, CostField string
	// Unit of a JSON or CSV log's numeric times; "" is Auto.
	Unit TimeUnit
	// WindowMs is the window clients' peaks are counted over.
	WindowMs int64
}

// Summary is what reading a log found.
type Summary struct {
	Name       string       `json:"name"`
	Format     Format       `json:"format"`
	Gzip       bool         `json:"gzip"`
	Key        string       `json:"key"`
	Lines      int64        `json:"lines"` // lines read (HAR: entries), blank ones included
	Requests   int64        `json:"requests"`
	Unreadable int64        `json:"unreadable"`
	Shown      []Unreadable `json:"unreadableLines"` // the first ShownUnreadable
	// OutOfOrder counts lines earlier than a line before them; each policy
	// decides them by its late rule.
	OutOfOrder int64 `json:"outOfOrder"`
	Clients    int   `json:"clients"`
	From       int64 `json:"fromMs"` // the earliest request, ms since the epoch
	To         int64 `json:"toMs"`   // the latest
}

// Unreadable is one line that could not be read, and why.
type Unreadable struct {
	Line   int64  `json:"line"` // from 1; a HAR file's entry number
	Reason string `json:"reason"`
	Text   string `json:"text,omitempty"` // its first 60 bytes
}

// Span is the time the log covers, for messages.
func (s Summary) Span() string {
	from := time.UnixMilli(s.From).UTC().Format(time.RFC3339)
	to := time.UnixMilli(s.To).UTC().Format(time.RFC3339)
	return from + " to " + to
}

// NoRequestsError is a log none of whose lines could be read.
type NoRequestsError struct{ Summary Summary }

func (e NoRequestsError) Error() string {
	s := e.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "traffic: no line of %s could be read as %s", s.Name, s.Format)
	if s.Gzip {
		b.WriteString(" (gzip)")
	}
	fmt.Fprintf(&b, ": %d lines", s.Lines)
	for _, u := range s.Shown {
		fmt.Fprintf(&b, "; line %d: %s", u.Line, u.Reason)
		if u.Text != "" {
			fmt.Fprintf(&b, " (%q)", u.Text)
		}
	}
	return b.String()
}

// Unwrap makes a NoRequestsError an ErrBadLog.
func (e NoRequestsError) Unwrap() error { return ErrBadLog }

// Read streams a log, calling emit with each chunk of at most
// ChunkRequests requests, in log order; the chunk is reused after emit
// returns, with the clients interned so far. It returns what it found and the clients it interned. An error
// from emit stops it and is returned; a log with no readable line is a
// NoRequestsError.
func Read(src Source, opts Options, emit func(chunk []Request, clients *Clients) error) (Summary, *Clients, error) {
	r := &reader{sum: Summary{Name: src.Name}, clients: NewClients(opts.WindowMs), emit: emit,
		chunk: make([]Request, 0, ChunkRequests)}
	if opts.Key == nil {
		opts.Key = DefaultKey
	}
	r.key = opts.Key
	r.sum.Key = opts.Key.String()
	br := bufio.NewReaderSize(src.R, 256<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return r.sum, nil, fmt.Errorf("%w: %s: %v", ErrBadLog, src.Name, err)
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 256<<10)
		r.sum.Gzip = true
	}
	format := opts.Format
	if format == "" {
		head, err := br.Peek(4096)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return r.sum, nil, readError(src.Name, err)
		}
		if format, err = sniff(head); err != nil {
			return r.sum, nil, fmt.Errorf("%s: %w", src.Name, err)
		}
	}
	r.sum.Format = format
	if err := format.check(opts.Key); err != nil {
		return r.sum, nil, err
	}
	var err error
	switch format {
	case HAR:
		err = r.readHAR(br)
	case JSONLines:
		tf, kf := opts.TimeField, opts.KeyField
		if tf == "" {
			tf = "time"
		}
		if kf == "" {
			kf = "client"
		}
		err = r.readLines(br, &jsonParser{timeField: tf, keyField: kf, costField: opts.CostField, unit: opts.Unit, fields: map[string]json.RawMessage{}})
	case CSV:
		r.header = true
		err = r.readLines(br, &csvParser{unit: opts.Unit})
	default:
		err = r.readLines(br, &clfParser{})
	}
	if err == nil && len(r.chunk) > 0 {
		err = r.emit(r.chunk, r.clients)
	}
	r.sum.Clients = r.clients.Len()
	if err != nil {
		return r.sum, nil, err
	}
	if r.sum.Requests == 0 {
		return r.sum, nil, NoRequestsError{r.sum}
	}
	return r.sum, r.clients, nil
}

func readError(name string, err error) error {
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s: %v", ErrBadLog, name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

type reader struct {
	sum     Summary
	clients *Clients
	key     Key
	emit    func([]Request, *Clients) error
	chunk   []Request
	keyBuf  []byte
	latest  int64
	header  bool // a CSV's first line may be a header
}

func (r *reader) unreadable(line int64, reason string, text []byte) {
	r.sum.Unreadable++
	if len(r.sum.Shown) < ShownUnreadable {
		r.sum.Shown = append(r.sum.Shown, Unreadable{Line: line, Reason: reason, Text: clip(bytes.ToValidUTF8(text, []byte("?")))})
	}
}

func (r *reader) readLines(br *bufio.Reader, p lineParser) error {
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(line) > MaxLineBytes {
			n++
			r.unreadable(n, fmt.Sprintf("longer than %d bytes", MaxLineBytes), line)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			r.sum.Lines = n
			if err != nil {
				return r.end(err)
			}
			continue
		}
		if len(line) > 0 {
			n++
			r.sum.Lines = n
			if err := r.line(n, p, line); err != nil {
				return err
			}
		}
		if err != nil {
			return r.end(err)
		}
	}
}

func (r *reader) end(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return readError(r.sum.Name, err)
}

func (r *reader) line(n int64, p lineParser, line []byte) error {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	if err := p.parse(line); err != nil {
		if r.header && n == 1 {
			return nil // a CSV header
		}
		r.unreadable(n, err.Error(), line)
		return nil
	}
	return r.add(n, p, line)
}

// add interns the line's key and appends its request.
func (r *reader) add(n int64, p lineParser, text []byte) error {
	r.keyBuf = r.keyBuf[:0]
	for i, k := range r.key {
		v, err := p.part(k)
		if err == nil && len(v) == 0 {
			err = fmt.Errorf("an empty %s", k.Kind)
		}
		if err != nil {
			r.unreadable(n, err.Error(), text)
			return nil
		}
		if i > 0 {
			r.keyBuf = append(r.keyBuf, ' ')
		}
		r.keyBuf = append(r.keyBuf, v...)
	}
	if len(r.keyBuf) > MaxKeyBytes {
		r.unreadable(n, fmt.Sprintf("a key longer than %d bytes", MaxKeyBytes), text)
		return nil
	}
	id, ok := r.clients.intern(r.keyBuf)
	if !ok {
		r.unreadable(n, fmt.Sprintf("more than %d distinct clients", MaxClients), text)
		return nil
	}
	at := p.at()
	if r.sum.Requests == 0 {
		r.sum.From, r.sum.To, r.latest = at, at, at
	}
	if at < r.latest {
		r.sum.OutOfOrder++
	}
	r.latest = max(r.latest, at)
	r.sum.From, r.sum.To = min(r.sum.From, at), max(r.sum.To, at)
	r.sum.Requests++
	r.clients.record(id, at)
	r.chunk = append(r.chunk, Request{At: at, Client: id, Cost: uint32(p.cost())})
	if len(r.chunk) == cap(r.chunk) {
		if err := r.emit(r.chunk, r.clients); err != nil {
			return err
		}
		r.chunk = r.chunk[:0]
	}
	return nil
}

// harEntry is what a HAR entry says that the replay uses.
type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         struct {
		URL     string `json:"url"`
		Headers []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"headers"`
	} `json:"request"`
}

// harParser gives an entry's key parts.
type harParser struct {
	e    harEntry
	u    *url.URL
	when int64
}

func (p *harParser) parse([]byte) error { return nil }
func (p *harParser) at() int64          { return p.when }
func (p *harParser) cost() int64        { return 1 }

func (p *harParser) part(k KeyPart) ([]byte, error) {
	switch k.Kind {
	case PartHost:
		return []byte(p.u.Host), nil
	case PartPath:
		return segments([]byte(p.u.EscapedPath()), k.Segments), nil
	}
	name := k.Name
	switch k.Kind {
	case PartAgent:
		name = "User-Agent"
	case PartReferer:
		name = "Referer"
	}
	for _, h := range p.e.Request.Headers {
		if strings.EqualFold(h.Name, name) {
			return []byte(h.Value), nil
		}
	}
	return nil, fmt.Errorf("no %s header", name)
}

// readHAR streams {"log": {"entries": [...]}}, one entry at a time; other
// members are skipped as they come.
func (r *reader) readHAR(br *bufio.Reader) error {
	dec := json.NewDecoder(br)
	bad := func(what string) error {
		return fmt.Errorf("%w: %s: not a HAR file: %s", ErrBadLog, r.sum.Name, what)
	}
	if !expectDelim(dec, '{') {
		return bad("it does not start with {")
	}
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return bad("its top level is not an object")
		}
		if name != "log" {
			if err := skipValue(dec); err != nil {
				return bad(err.Error())
			}
			continue
		}
		if !expectDelim(dec, '{') {
			return bad(`"log" is not an object`)
		}
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return bad(`"log" is not an object`)
			}
			if name != "entries" {
				if err := skipValue(dec); err != nil {
					return bad(err.Error())
				}
				continue
			}
			if !expectDelim(dec, '[') {
				return bad(`"entries" is not a list`)
			}
			p := &harParser{}
			for dec.More() {
				r.sum.Lines++
				n := r.sum.Lines
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return bad(fmt.Sprintf("entry %d: %v", n, err))
				}
				if len(raw) > MaxLineBytes*16 {
					r.unreadable(n, fmt.Sprintf("an entry longer than %d bytes", MaxLineBytes*16), nil)
					continue
				}
				p.e = harEntry{}
				if err := json.Unmarshal(raw, &p.e); err != nil {
					r.unreadable(n, "not a HAR entry", raw)
					continue
				}
				t, err := time.Parse(time.RFC3339Nano, p.e.StartedDateTime)
				if err != nil || t.UnixMilli() < 0 {
					r.unreadable(n, fmt.Sprintf("startedDateTime %q is not an RFC 3339 time", p.e.StartedDateTime), nil)
					continue
				}
				if p.u, err = url.Parse(p.e.Request.URL); err != nil || p.e.Request.URL == "" {
					r.unreadable(n, fmt.Sprintf("request url %q is not a URL", p.e.Request.URL), nil)
					continue
				}
				p.when = t.UnixMilli()
				if err := r.add(n, p, nil); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return bad("entries do not close")
			}
		}
		if _, err := dec.Token(); err != nil {
			return bad(`"log" does not close`)
		}
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) bool {
	t, err := dec.Token()
	return err == nil && t == want
}

// skipValue reads past one value without keeping it.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}
