package traffic

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Format names a log format.
type Format string

// The formats Read understands.
const (
	// Combined is nginx's and Apache's default: Common plus "referer" "agent".
	Combined Format = "combined"
	// Common is the Common Log Format: host ident user [time] "request" status bytes.
	Common Format = "common"
	// JSONLines is one JSON object a line, its fields named by Options.
	JSONLines Format = "jsonl"
	// CSV is time,key[,cost] a line; a first line that is not a time is a header.
	CSV Format = "csv"
	// HAR is a browser's HTTP Archive: one JSON document, streamed entry by entry.
	HAR Format = "har"
)

// Formats lists the formats in the order help names them.
var Formats = []Format{Combined, Common, JSONLines, CSV, HAR}

// ParseFormat reads a format's name; "" and "auto" mean "tell from the
// first line" (Format "").
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); {
	case s == "" || s == "auto":
		return "", nil
	case f == "json":
		return JSONLines, nil
	case slices.Contains(Formats, f):
		return f, nil
	}
	return "", fmt.Errorf("format %q: want auto, combined, common, jsonl, csv or har", s)
}

// Offers lists the key parts the format has.
func (f Format) Offers() []string {
	switch f {
	case Combined:
		return []string{PartClient, PartUser, PartPath, PartAgent, PartReferer}
	case Common:
		return []string{PartClient, PartUser, PartPath}
	case JSONLines:
		return []string{PartClient, PartUser, PartPath, PartField}
	case CSV:
		return []string{PartClient}
	case HAR:
		return []string{PartHost, PartPath, PartAgent, PartReferer, PartHeader}
	}
	return nil
}

// check says which part of k the format lacks, naming what it has.
func (f Format) check(k Key) error {
	for _, p := range k {
		if !slices.Contains(f.Offers(), p.Kind) {
			why := ""
			if f == HAR && p.Kind == PartClient {
				why = " (a HAR file is one browser's requests: it has no client address)"
			}
			return fmt.Errorf("%w: a %s log has no %s%s; choose from %s", ErrBadLog, f, p.Kind, why, strings.Join(f.Offers(), ", "))
		}
	}
	return nil
}

// ErrBadLog marks what is wrong with the log or the way it was asked to be
// read, rather than with the machine: a command answers it with status 2.
var ErrBadLog = errors.New("traffic")

// ErrTooLarge is a log beyond a bound the caller set.
var ErrTooLarge = fmt.Errorf("%w: too large", ErrBadLog)

// sniff tells a log's format from its first lines (the first the formats
// recognise, so that a stray first line does not hide the rest) and, for
// HAR, from the bytes it opens with.
func sniff(head []byte) (Format, error) {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return "", fmt.Errorf("%w: the log is empty", ErrBadLog)
	}
	if trimmed[0] == '{' {
		// A HAR file is one object whose first member is "log": {…}.
		rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		if after, ok := bytes.CutPrefix(rest, []byte(`"log"`)); ok {
			after = bytes.TrimLeft(after, " \t\r\n")
			if after, ok = bytes.CutPrefix(after, []byte(":")); ok && bytes.HasPrefix(bytes.TrimLeft(after, " \t\r\n"), []byte("{")) {
				return HAR, nil
			}
		}
		return JSONLines, nil
	}
	first, _, _ := bytes.Cut(trimmed, []byte("\n"))
	lines := bytes.Split(trimmed, []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut short
	}
	for _, line := range lines {
		line = bytes.TrimRight(line, "\r")
		var p clfParser
		if p.parse(line) == nil {
			if p.combined {
				return Combined, nil
			}
			return Common, nil
		}
		if len(line) > 0 && line[0] == '{' && json.Valid(line) {
			return JSONLines, nil
		}
	}
	for _, line := range lines {
		var p csvParser
		if p.parse(bytes.TrimRight(line, "\r")) == nil {
			return CSV, nil
		}
	}
	return "", fmt.Errorf("%w: cannot tell the format from the first line %q; give --format (combined, common, jsonl, csv or har)", ErrBadLog, clip(bytes.TrimRight(first, "\r")))
}

// A lineParser reads one line of its format; part then gives the key parts
// of the line it last read.
type lineParser interface {
	parse(line []byte) error
	at() int64
	cost() int64
	part(p KeyPart) ([]byte, error)
}

// clfParser reads the Common and Combined Log Formats.
type clfParser struct {
	clock                            clfClock
	host, user, path, referer, agent []byte
	when                             int64
	combined                         bool
}

func (p *clfParser) at() int64   { return p.when }
func (p *clfParser) cost() int64 { return 1 }

func (p *clfParser) parse(line []byte) error {
	var ok bool
	if p.host, line, ok = token(line); !ok {
		return errors.New("no client address")
	}
	if _, line, ok = token(line); !ok {
		return errors.New("no ident field")
	}
	if p.user, line, ok = token(line); !ok {
		return errors.New("no user field")
	}
	if len(line) < 28 || line[0] != '[' || line[27] != ']' {
		return errors.New("no [time] where the Common Log Format has one")
	}
	if p.when, ok = p.clock.parse(line[1:27]); !ok {
		return fmt.Errorf("time [%s] is not dd/Mon/yyyy:hh:mm:ss ±zone", line[1:27])
	}
	line = bytes.TrimLeft(line[28:], " ")
	var request []byte
	if request, line, ok = quoted(line); !ok {
		return errors.New("no quoted request after the time")
	}
	p.path = nil
	if _, rest, ok := bytes.Cut(request, []byte(" ")); ok {
		p.path, _, _ = bytes.Cut(rest, []byte(" "))
	}
	// status and bytes
	for range 2 {
		if _, line, ok = token(line); !ok {
			return errors.New("no status and size after the request")
		}
	}
	p.referer, p.agent, p.combined = nil, nil, false
	if len(line) > 0 {
		if p.referer, line, ok = quoted(line); ok {
			if p.agent, _, ok = quoted(line); ok {
				p.combined = true
			}
		}
	}
	return nil
}

func (p *clfParser) part(k KeyPart) ([]byte, error) {
	switch k.Kind {
	case PartClient:
		return p.host, nil
	case PartUser:
		return p.user, nil
	case PartPath:
		if len(p.path) == 0 {
			return []byte("-"), nil
		}
		return segments(p.path, k.Segments), nil
	case PartReferer, PartAgent:
		if !p.combined {
			return nil, errors.New("no referer and user agent (a common, not combined, line)")
		}
		if k.Kind == PartAgent {
			return p.agent, nil
		}
		return p.referer, nil
	}
	return nil, fmt.Errorf("no %s", k.Kind)
}

// token cuts the space-separated field at the start of b.
func token(b []byte) (field, rest []byte, ok bool) {
	b = bytes.TrimLeft(b, " ")
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return b, nil, len(b) > 0
	}
	return b[:i], b[i+1:], i > 0
}

// quoted cuts the "…" field at the start of b; a backslash escapes the
// next byte (Apache writes \" inside; nginx writes \x22).
func quoted(b []byte) (field, rest []byte, ok bool) {
	b = bytes.TrimLeft(b, " ")
	if len(b) == 0 || b[0] != '"' {
		return nil, b, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[1:i], b[i+1:], true
		}
	}
	return nil, b, false
}

// jsonParser reads one JSON object a line.
type jsonParser struct {
	timeField, keyField, costField string
	unit                           TimeUnit
	fields                         map[string]json.RawMessage
	when, n                        int64
}

func (p *jsonParser) at() int64   { return p.when }
func (p *jsonParser) cost() int64 { return p.n }

func (p *jsonParser) parse(line []byte) error {
	clear(p.fields)
	if err := json.Unmarshal(line, &p.fields); err != nil {
		return errors.New("not a JSON object")
	}
	raw, err := p.field(p.timeField)
	if err != nil {
		return err
	}
	if p.when, err = parseTime(unquote(raw), p.unit); err != nil {
		return err
	}
	p.n = 1
	if p.costField != "" {
		raw, err := p.field(p.costField)
		if err != nil {
			return err
		}
		if p.n, err = parseCost(unquote(raw)); err != nil {
			return err
		}
	}
	return nil
}

// field finds a field, following dots into nested objects.
func (p *jsonParser) field(name string) (json.RawMessage, error) {
	first, rest, nested := strings.Cut(name, ".")
	raw, ok := p.fields[first]
	for ok && nested {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, fmt.Errorf("field %q is not an object", first)
		}
		first, rest, nested = strings.Cut(rest, ".")
		raw, ok = obj[first]
	}
	if !ok || string(raw) == "null" {
		return nil, fmt.Errorf("no %q field", name)
	}
	return raw, nil
}

func (p *jsonParser) part(k KeyPart) ([]byte, error) {
	name := k.Name
	switch k.Kind {
	case PartClient:
		name = p.keyField
	case PartUser, PartPath:
		name = k.Kind
	}
	raw, err := p.field(name)
	if err != nil {
		return nil, err
	}
	v := unquote(raw)
	if k.Kind == PartPath {
		v = segments(v, k.Segments)
	}
	return v, nil
}

// unquote is a JSON value's text: a string's contents (escapes read), any
// other value as written.
func unquote(raw json.RawMessage) []byte {
	if len(raw) > 0 && raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 {
			return raw[1 : len(raw)-1]
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []byte(s)
		}
	}
	return raw
}

func parseCost(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n < 1 || n > MaxCost {
		return 0, fmt.Errorf("cost %q is not a whole number from 1 to %d", clip(b), MaxCost)
	}
	return n, nil
}

// csvParser reads time,key[,cost].
type csvParser struct {
	unit     TimeUnit
	key      []byte
	when, n  int64
	fieldBuf [][]byte
}

func (p *csvParser) at() int64   { return p.when }
func (p *csvParser) cost() int64 { return p.n }

func (p *csvParser) parse(line []byte) error {
	fields := p.fieldBuf[:0]
	if bytes.IndexByte(line, '"') >= 0 {
		rec, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil {
			return errors.New("a quoted field does not close on its line")
		}
		for _, f := range rec {
			fields = append(fields, []byte(f))
		}
	} else {
		for f := range bytes.SplitSeq(line, []byte(",")) {
			fields = append(fields, f)
		}
	}
	p.fieldBuf = fields
	if len(fields) < 2 || len(fields) > 3 {
		return fmt.Errorf("%d columns; want time,key[,cost]", len(fields))
	}
	var err error
	if p.when, err = parseTime(fields[0], p.unit); err != nil {
		return err
	}
	p.key, p.n = bytes.TrimSpace(fields[1]), 1
	if len(fields) == 3 {
		if p.n, err = parseCost(fields[2]); err != nil {
			return err
		}
	}
	return nil
}

func (p *csvParser) part(k KeyPart) ([]byte, error) {
	if len(p.key) == 0 {
		return nil, errors.New("an empty key")
	}
	return p.key, nil
}
