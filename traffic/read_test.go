package traffic

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// t0 is 1 December 2026, 00:00 UTC, in ms.
var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// readAll reads a log and returns its requests with their keys.
func readAll(t *testing.T, log []byte, opts Options) (Summary, []Request, *Clients) {
	t.Helper()
	var reqs []Request
	sum, clients, err := Read(Source{Name: "test.log", R: bytes.NewReader(log)}, opts, func(c []Request, _ *Clients) error {
		reqs = append(reqs, c...)
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return sum, reqs, clients
}

type keyed struct {
	at   int64
	key  string
	cost uint32
}

func keyedOf(reqs []Request, c *Clients) []keyed {
	out := make([]keyed, len(reqs))
	for i, r := range reqs {
		out[i] = keyed{r.At, c.Name(r.Client), r.Cost}
	}
	return out
}

func TestReadFormats(t *testing.T) {
	tests := []struct {
		name   string
		log    string
		opts   Options
		format Format
		want   []keyed
	}{
		{"combined", `10.0.0.1 - alice [01/Dec/2026:00:00:01 +0000] "GET /api/v1/items?id=3 HTTP/1.1" 200 512 "-" "curl/8.5.0"
10.0.0.2 - - [01/Dec/2026:01:00:02 +0100] "POST /login HTTP/1.1" 302 0 "https://x.test/" "Mozilla/5.0"
`, Options{}, Combined, []keyed{{t0 + 1000, "10.0.0.1", 1}, {t0 + 2000, "10.0.0.2", 1}}},
		{"common, key user", `10.0.0.1 - alice [01/Dec/2026:00:00:01 +0000] "GET / HTTP/1.0" 200 512
10.0.0.2 - bob [01/Dec/2026:00:00:03 -0030] "GET / HTTP/1.0" 200 512
`, Options{Key: Key{{Kind: PartUser}}}, Common, []keyed{{t0 + 1000, "alice", 1}, {t0 + 3000 + 1800_000, "bob", 1}}},
		{"combined, key client+path:2", `10.0.0.1 - - [01/Dec/2026:00:00:01 +0000] "GET /api/v1/items/42?x=1 HTTP/1.1" 200 5 "-" "a"
`, Options{Key: Key{{Kind: PartClient}, {Kind: PartPath, Segments: 2}}}, Combined, []keyed{{t0 + 1000, "10.0.0.1 /api/v1", 1}}},
		{"combined, key agent", `10.0.0.1 - - [01/Dec/2026:00:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "curl/8.5.0"
`, Options{Key: Key{{Kind: PartAgent}}}, Combined, []keyed{{t0 + 1000, "curl/8.5.0", 1}}},
		{"JSON lines, RFC 3339 and epoch units", `{"time": "2026-12-01T00:00:01.5Z", "client": "a"}
{"time": 1796083202, "client": "b"}
{"time": 1796083203000, "client": "c", "cost": 3}
{"time": 1796083204000000, "client": 7}
{"time": "1796083205.25", "client": "a"}
`, Options{CostField: ""}, JSONLines, []keyed{{t0 + 1500, "a", 1}, {t0 + 2000, "b", 1}, {t0 + 3000, "c", 1}, {t0 + 4000, "7", 1}, {t0 + 5250, "a", 1}}},
		{"JSON lines, fields named, nested key", `{"ts": 1796083201000, "req": {"apiKey": "k1"}, "units": 4}
`, Options{TimeField: "ts", Key: Key{{Kind: PartField, Name: "req.apiKey"}}, CostField: "units", Unit: Milliseconds}, JSONLines, []keyed{{t0 + 1000, "k1", 4}}},
		{"CSV with a header and costs", "time,key,cost\n1796083201,a,2\n2026-12-01T00:00:02Z,b\n", Options{}, CSV, []keyed{{t0 + 1000, "a", 2}, {t0 + 2000, "b", 1}}},
		{"HAR, key host+path", `{"log": {"version": "1.2", "creator": {"name": "x"}, "entries": [
  {"startedDateTime": "2026-12-01T00:00:01.000Z", "request": {"method": "GET", "url": "https://api.test/v1/a?q=1", "headers": [{"name": "X-Api-Key", "value": "k9"}]}, "response": {"status": 200}},
  {"startedDateTime": "2026-12-01T00:00:02.000Z", "request": {"method": "GET", "url": "https://cdn.test/app.js", "headers": []}}
]}}`, Options{Key: Key{{Kind: PartHost}, {Kind: PartPath}}}, HAR, []keyed{{t0 + 1000, "api.test /v1/a", 1}, {t0 + 2000, "cdn.test /app.js", 1}}},
		{"HAR, key header", `{"log": {"entries": [{"startedDateTime": "2026-12-01T00:00:01Z", "request": {"url": "https://api.test/", "headers": [{"name": "x-api-key", "value": "k9"}]}}]}}`,
			Options{Key: Key{{Kind: PartHeader, Name: "X-Api-Key"}}}, HAR, []keyed{{t0 + 1000, "k9", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum, reqs, clients := readAll(t, []byte(tc.log), tc.opts)
			if sum.Format != tc.format {
				t.Errorf("format = %s, want %s", sum.Format, tc.format)
			}
			got := keyedOf(reqs, clients)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("requests = %v, want %v", got, tc.want)
			}
			if sum.Unreadable != 0 {
				t.Errorf("unreadable = %d (%v), want 0", sum.Unreadable, sum.Shown)
			}
		})
	}
}

// A gzip-compressed log reads as the same log uncompressed, from a file
// or standard input.
func TestReadGzipAndStdin(t *testing.T) {
	var plain bytes.Buffer
	if err := (Generated{Lines: 500, Clients: 20, Start: time.UnixMilli(t0), Span: time.Hour, Seed: 3}).WriteCombined(&plain); err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain.Bytes())
	zw.Close()
	sum1, reqs1, c1 := readAll(t, plain.Bytes(), Options{})
	src, closer, err := Open("-", bytes.NewReader(zipped.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	var reqs2 []Request
	sum2, c2, err := Read(src, Options{}, func(c []Request, _ *Clients) error { reqs2 = append(reqs2, c...); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !sum2.Gzip || sum1.Gzip {
		t.Errorf("gzip = %v and %v, want false for the plain log and true for the compressed", sum1.Gzip, sum2.Gzip)
	}
	if sum2.Name != "standard input" {
		t.Errorf("name = %q, want standard input", sum2.Name)
	}
	if sum1.Requests != 500 || fmt.Sprint(keyedOf(reqs1, c1)) != fmt.Sprint(keyedOf(reqs2, c2)) {
		t.Errorf("the compressed log read differently: %d and %d requests", len(reqs1), len(reqs2))
	}
}

// Lines that cannot be read are counted and the first few quoted with
// their numbers; lines earlier than one before them are kept, in log
// order, and counted.
func TestReadUnreadableAndOutOfOrder(t *testing.T) {
	log := strings.Join([]string{
		`10.0.0.1 - - [01/Dec/2026:00:00:05 +0000] "GET / HTTP/1.1" 200 5`,
		`garbage`,
		`10.0.0.1 - - [01/Dec/2026:00:00:03 +0000] "GET / HTTP/1.1" 200 5`, // out of order
		`10.0.0.2 - - [31/Feb/2026:00:00:03 +0000] "GET / HTTP/1.1" 200 5`, // no such day
		``,
		`10.0.0.3 - - [01/Dec/2026:00:00:06 +0000] "GET / HTTP/1.1`,
		`10.0.0.4 - - [01/Dec/2026:00:00:07 +0000] "GET / HTTP/1.1" 200 5`,
		`10.0.0.4 - - [01/Dec/2026:00:00:06 +0000] "GET / HTTP/1.1" 200 5`, // out of order
		"\x00\xff binary",
		`x`, `y`, `z`,
	}, "\n")
	sum, reqs, clients := readAll(t, []byte(log), Options{Format: Common})
	if sum.Requests != 4 || sum.Unreadable != 7 || sum.OutOfOrder != 2 || sum.Lines != 12 {
		t.Errorf("requests %d, unreadable %d, out of order %d, lines %d; want 4, 7, 2, 12", sum.Requests, sum.Unreadable, sum.OutOfOrder, sum.Lines)
	}
	var lines []int64
	for _, u := range sum.Shown {
		lines = append(lines, u.Line)
	}
	if fmt.Sprint(lines) != "[2 4 6 9 10]" {
		t.Errorf("unreadable lines shown = %v, want [2 4 6 9 10] (the first %d)", lines, ShownUnreadable)
	}
	if got := keyedOf(reqs, clients); got[1].at != t0+3000 || got[3].at != t0+6000 {
		t.Errorf("requests = %v, want log order kept", got)
	}
	if !strings.Contains(sum.Shown[1].Reason, "31/Feb/2026") {
		t.Errorf("line 4's reason = %q, want it to quote the time", sum.Shown[1].Reason)
	}
}

// A log with no readable line is an error naming the format tried and
// what was found, marked as the user's (ErrBadLog); so is a key the format
// does not have.
func TestReadNothingReadable(t *testing.T) {
	_, _, err := Read(Source{Name: "x.log", R: strings.NewReader("a,b,c,d\n1,2,3,4\n")}, Options{Format: CSV}, func([]Request, *Clients) error { return nil })
	var nr NoRequestsError
	if !errors.As(err, &nr) || !errors.Is(err, ErrBadLog) {
		t.Fatalf("err = %v, want a NoRequestsError", err)
	}
	for _, want := range []string{"x.log", "csv", "2 lines", "line 2: 4 columns"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	_, _, err = Read(Source{Name: "x.har", R: strings.NewReader(`{"log": {"entries": []}}`)}, Options{}, func([]Request, *Clients) error { return nil })
	if err == nil || !errors.Is(err, ErrBadLog) || !strings.Contains(err.Error(), "no client address") {
		t.Errorf("HAR keyed by client: err = %v, want one saying a HAR file has no client address", err)
	}
	_, _, err = Read(Source{Name: "x", R: strings.NewReader("just words\n")}, Options{}, func([]Request, *Clients) error { return nil })
	if err == nil || !errors.Is(err, ErrBadLog) || !strings.Contains(err.Error(), "--format") {
		t.Errorf("unknown format: err = %v, want one asking for --format", err)
	}
}

func TestParseKey(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "client", ""},
		{"client+path:1", "client+path:1", ""},
		{"field:user.id", "field:user.id", ""},
		{"path:0", "", "from 1 to 32"},
		{"header", "", "needs a name"},
		{"cookie", "", "unknown part"},
	} {
		k, err := ParseKey(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseKey(%q) err = %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || k.String() != tc.want):
			t.Errorf("ParseKey(%q) = %v, %v; want %s", tc.in, k, err, tc.want)
		}
	}
}
