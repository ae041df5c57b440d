// Command loadtest measures the playground server under the loads issue 8
// names, against a server on this machine only: one it builds and starts
// itself (the default), or one already listening on loopback (-addr).
// Every run is bounded in requests, streams and time, and stops by itself.
//
//	go run ./cmd/loadtest -mode simulate   # 10 worst-case /api/simulate a second for 30 s
//	go run ./cmd/loadtest -mode streams -streams 100
//	go run ./cmd/loadtest -mode room -followers 300
//	go run ./cmd/loadtest -mode sessions -duration 10s   # 500 GET /play a second from one address
//	go run ./cmd/loadtest -mode abuse -abuse answers       # one of issue 17's findings (abuse.go)
//
// simulate sends worst-case scenarios (10,000 requests, 8 sliding-log lanes,
// limit 10,000, 100 keys) at -rate per second for -duration while sampling
// GET /lessons, and reports whether every simulate was answered (200 or 503)
// within 2 s, their latency, the server's peak resident memory, and the
// /lessons p50/p99. streams opens -streams SSE streams on /play as a browser
// would (its Accept-Encoding) and reports the server's memory per stream.
// room starts a workshop room, opens -followers phone streams of it, plays
// the clock and fires a request every -fire-every for -duration, and
// reports action-to-event latency, updates a second, memory and CPU.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/windowlab/playground/internal/cli"
	"github.com/windowlab/playground/internal/procstat"
	"github.com/windowlab/playground/scenario"
)

// Bounds of one run, whatever the flags say.
const (
	maxRequests = 10_000
	maxDuration = 5 * time.Minute
	maxStreams  = 1_000
	// answerWithin is issue 8's bound on every simulate answer.
	answerWithin = 2 * time.Second
)

// browserAcceptEncoding is what Chrome and Firefox send.
const browserAcceptEncoding = "gzip, deflate, br, zstd"

func main() {
	os.Exit(cli.ExitCode("loadtest", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

type options struct {
	mode     string
	addr     string
	pid      int
	rate     int
	duration time.Duration
	streams  int

	followers int
	fireEvery time.Duration

	flood int

	abuse string

	store    string
	replicas int
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.mode, "mode", "simulate", "simulate, streams, room, sessions or abuse")
	fs.StringVar(&o.abuse, "abuse", "", "abuse: which finding to replay: "+strings.Join(abuses, ", "))
	fs.StringVar(&o.addr, "addr", "", "a server already listening on loopback (127.0.0.1:8080); empty: build and start one")
	fs.IntVar(&o.pid, "pid", 0, "with -addr, the server's process id, to read its memory from /proc")
	fs.IntVar(&o.rate, "rate", 10, "simulate: requests a second")
	fs.DurationVar(&o.duration, "duration", 30*time.Second, "simulate: how long to send; room: how long the clock plays")
	fs.IntVar(&o.streams, "streams", 100, "streams: how many SSE streams to open")
	fs.IntVar(&o.followers, "followers", 300, "room: how many phone streams follow the room")
	fs.DurationVar(&o.fireEvery, "fire-every", 500*time.Millisecond, "room: how often the presenter fires a request")
	fs.StringVar(&o.store, "store", "nats", "where the server it starts keeps rooms and sessions: nats (serve's default, an embedded NATS server with its files in a temporary directory) or memory (serve -memory)")
	fs.IntVar(&o.replicas, "replicas", 1, "room: 1, or 2 servers sharing one NATS server (playground nats), the presenter on the first and the followers split between them")
	fs.IntVar(&o.flood, "flood", 500, "sessions: GET /play a second from address A (with -duration 10s or less: at most 10,000 requests)")
	if err := fs.Parse(args); err != nil {
		return cli.Usage{Err: err}
	}
	switch {
	case !slices.Contains([]string{"simulate", "streams", "room", "sessions", "abuse"}, o.mode):
		return cli.Usagef("-mode %q: want simulate, streams, room, sessions or abuse", o.mode)
	case o.mode == "abuse" && !slices.Contains(abuses, o.abuse):
		return cli.Usagef("-abuse %q: want one of %s", o.abuse, strings.Join(abuses, ", "))
	case o.mode == "sessions" && (o.flood < 1 || int64(o.flood)*int64(o.duration/time.Second) > maxRequests):
		return cli.Usagef("-flood %d for -duration %v: want at most %d requests", o.flood, o.duration, maxRequests)
	case o.rate < 1 || o.duration <= 0 || o.duration > maxDuration || int64(o.rate)*int64(o.duration/time.Second) > maxRequests:
		return cli.Usagef("-rate %d for -duration %v: want at most %d requests over at most %v", o.rate, o.duration, maxRequests, maxDuration)
	case o.streams < 1 || o.streams > maxStreams:
		return cli.Usagef("-streams %d: want 1 to %d", o.streams, maxStreams)
	case o.followers < 1 || o.followers > maxFollowers():
		return cli.Usagef("-followers %d: want 1 to %d (a room's own bound, room.DefaultBounds().Followers, and this tool's stream cap)", o.followers, maxFollowers())
	case o.store != "nats" && o.store != "memory":
		return cli.Usagef("-store %q: want nats or memory", o.store)
	case o.replicas != 1 && (o.replicas != 2 || o.mode != "room" || o.store != "nats" || o.addr != ""):
		return cli.Usagef("-replicas %d: want 1, or 2 with -mode room, -store nats and no -addr", o.replicas)
	case o.fireEvery < minFireEvery:
		return cli.Usagef("-fire-every %v: want at least %v", o.fireEvery, minFireEvery)
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxDuration+time.Minute)
	defer cancel()

	base, pid := "", o.pid
	mem := &memSampler{}
	var followBases []string
	if o.addr != "" {
		if err := checkLoopback(o.addr); err != nil {
			return cli.Usage{Err: err}
		}
		base = "http://" + o.addr
	} else {
		bin, err := buildServer(ctx, stderr)
		if err != nil {
			return err
		}
		defer os.RemoveAll(filepath.Dir(bin))
		storeArgs := []string{"-memory"}
		if o.store == "nats" {
			storeArgs = []string{"-data", filepath.Join(filepath.Dir(bin), "nats")}
		}
		if o.replicas == 2 {
			nats, url, err := startShared(ctx, bin, filepath.Join(filepath.Dir(bin), "shared"))
			if err != nil {
				return err
			}
			defer nats.stop()
			storeArgs = []string{"-nats", url}
			second, err := startServer(ctx, bin, storeArgs)
			if err != nil {
				return err
			}
			defer second.stop()
			followBases = append(followBases, second.base)
			mem.others = append(mem.others, second.cmd.Process.Pid, nats.cmd.Process.Pid)
		}
		srv, err := startServer(ctx, bin, storeArgs)
		if err != nil {
			return err
		}
		defer srv.stop()
		base, pid = srv.base, srv.cmd.Process.Pid
		followBases = append([]string{base}, followBases...)
	}
	if followBases == nil {
		followBases = []string{base}
	}
	mem.pid = pid
	fmt.Fprintf(stdout, "loadtest %s against %s (server pid %d, store %s, %d replica(s)), %s\n", o.mode, base, pid, o.store, len(followBases), loadAverage())
	switch o.mode {
	case "simulate":
		return runSimulate(ctx, o, base, mem, stdout)
	case "room":
		return runRoom(ctx, o, base, followBases, mem, stdout)
	case "sessions":
		return runSessions(ctx, o, base, mem, stdout)
	case "abuse":
		return runAbuse(ctx, o, base, mem, stdout)
	default:
		return runStreams(ctx, o, base, mem, stdout)
	}
}

// checkLoopback refuses any target but this machine.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %q: only a server on loopback (127.0.0.1, ::1, localhost) may be load-tested", addr)
	}
	return nil
}

type server struct {
	cmd  *exec.Cmd
	base string
}

var listening = regexp.MustCompile(`playground listening on (http://\S+)`)

// buildServer builds the playground into a temporary directory, from the
// module root (for the Datastar bundle), and returns the binary's path.
func buildServer(ctx context.Context, stderr io.Writer) (string, error) {
	dir, err := os.MkdirTemp("", "loadtest-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "playground")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/playground")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("building the server (run from the module root): %w", err)
	}
	return bin, nil
}

// startServer starts bin's serve on a free loopback port with the store
// flags given.
func startServer(ctx context.Context, bin string, storeArgs []string) (*server, error) {
	s, m, err := startChild(ctx, listening, bin, append([]string{"serve", "-addr", "127.0.0.1:0"}, storeArgs...)...)
	if err != nil {
		return nil, err
	}
	s.base = strings.Replace(m, "localhost", "127.0.0.1", 1)
	return s, nil
}

var natsListening = regexp.MustCompile(`nats listening on (nats://\S+)`)

// startShared starts bin's nats, the server replicas share, on a free
// loopback port with its files under dir, and returns its URL.
func startShared(ctx context.Context, bin, dir string) (*server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	s, url, err := startChild(ctx, natsListening, bin, "nats", "-listen", addr, "-data", dir)
	return s, url, err
}

// startChild starts bin with args and waits for a line of its standard
// error that ready matches, returning ready's first group.
func startChild(ctx context.Context, ready *regexp.Regexp, bin string, args ...string) (*server, string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s := &server{cmd: cmd}
	lines := bufio.NewScanner(out)
	found := ""
	for lines.Scan() {
		if m := ready.FindStringSubmatch(lines.Text()); m != nil {
			found = m[1]
			break
		}
	}
	if found == "" {
		s.stop()
		return nil, "", fmt.Errorf("%s %s did not say it was ready", filepath.Base(bin), args[0])
	}
	go func() { _, _ = io.Copy(io.Discard, out) }() // its request log
	return s, found, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// memSampler reads a process's resident memory from /proc.
type memSampler struct {
	pid int
	// others are the other processes serving the run (a second replica,
	// the NATS server they share), counted with pid.
	others []int

	mu   sync.Mutex
	peak int64 // KB, the largest VmRSS sampled
}

// read returns VmRSS and VmHWM in KB (0 when unknown).
func (m *memSampler) read() (rss, hwm int64) {
	if m.pid == 0 {
		return 0, 0
	}
	for _, pid := range append([]int{m.pid}, m.others...) {
		r, h := readStatus(pid)
		rss, hwm = rss+r, hwm+h
	}
	m.mu.Lock()
	m.peak = max(m.peak, rss)
	m.mu.Unlock()
	return rss, hwm
}

// readStatus returns one process's VmRSS and VmHWM in KB.
func readStatus(pid int) (rss, hwm int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch name {
		case "VmRSS":
			rss = kb
		case "VmHWM":
			hwm = kb
		}
	}
	return rss, hwm
}

// sample reads the memory every interval until ctx ends.
func (m *memSampler) sample(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		m.read()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func loadAverage() string { return "load average " + procstat.LoadAverage() }

type answer struct {
	status  int // 0: no answer (err)
	latency time.Duration
	err     error
}

func runSimulate(ctx context.Context, o options, base string, mem *memSampler, stdout io.Writer) error {
	body, err := json.Marshal(scenario.WorstCase())
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 30 * time.Second}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	go mem.sample(sampleCtx, 50*time.Millisecond)

	var lessons []time.Duration
	var lessonsMu sync.Mutex
	var lessonErrs int
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-sampleCtx.Done():
				return
			case <-t.C:
			}
			start := time.Now()
			res, err := client.Get(base + "/lessons")
			took := time.Since(start)
			lessonsMu.Lock()
			if err != nil || res.StatusCode != http.StatusOK {
				lessonErrs++
			} else {
				lessons = append(lessons, took)
			}
			lessonsMu.Unlock()
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}
	}()

	total := o.rate * int(o.duration/time.Second)
	answers := make([]answer, total)
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(o.rate))
	for i := range total {
		<-tick.C
		wg.Go(func() {
			start := time.Now()
			res, err := client.Post(base+"/api/simulate", "application/json", bytes.NewReader(body))
			if err != nil {
				answers[i] = answer{err: err, latency: time.Since(start)}
				return
			}
			_, err = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			answers[i] = answer{status: res.StatusCode, latency: time.Since(start), err: err}
		})
	}
	tick.Stop()
	wg.Wait()
	stopSampling()
	_, hwm := mem.read()

	byStatus := map[int]int{}
	var lat []time.Duration
	late, failed := 0, 0
	for _, a := range answers {
		if a.err != nil {
			failed++
			continue
		}
		byStatus[a.status]++
		lat = append(lat, a.latency)
		if a.latency > answerWithin {
			late++
		}
	}
	slices.Sort(lat)
	lessonsMu.Lock()
	slices.Sort(lessons)
	lessonsMu.Unlock()
	ok := failed == 0 && late == 0 && byStatus[200]+byStatus[503] == total
	fmt.Fprintf(stdout, "simulate: %d worst-case requests (%d body bytes) at %d/s for %v\n", total, len(body), o.rate, o.duration)
	fmt.Fprintf(stdout, "  answers by status: %v; no answer: %d\n", byStatus, failed)
	fmt.Fprintf(stdout, "  every one answered 200 or 503 within %v: %v (%d late)\n", answerWithin, ok, late)
	fmt.Fprintf(stdout, "  latency p50 %v, p99 %v, max %v\n", pct(lat, 50), pct(lat, 99), pct(lat, 100))
	fmt.Fprintf(stdout, "  server RSS peak %d MB sampled, VmHWM %d MB\n", mem.peak/1024, hwm/1024)
	fmt.Fprintf(stdout, "  /lessons: %d samples, p50 %v, p99 %v, max %v, %d failed\n", len(lessons), pct(lessons, 50), pct(lessons, 99), pct(lessons, 100), lessonErrs)
	return nil
}

// pct is the p-th percentile of sorted durations (p = 100: the maximum).
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)].Round(time.Millisecond / 10)
}

// sessionAttr finds a /play page's session in its stream element
// (<div id="play-stream" data-session="…">), whatever the expression
// that opens the stream says.
var sessionAttr = regexp.MustCompile(`data-session="([A-Za-z0-9_-]+)"`)

// runStreams opens o.streams /play pages' streams as a browser would and
// reports the server's resident memory per open stream. The pages come from
// one address, so o.streams above play.MaxSessionsPerClient (150) would
// measure evicted sessions. A workshop room's followers, and their
// action-to-event latency, are -mode room's (room.go).
func runStreams(ctx context.Context, o options, base string, mem *memSampler, stdout io.Writer) error {
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxConnsPerHost: o.streams + 10}}
	paths := make([]string, 0, o.streams)
	for range o.streams {
		path, err := openPlay(base, client)
		if err != nil {
			return err
		}
		paths = append(paths, path)
	}
	time.Sleep(500 * time.Millisecond) // let the server settle before the baseline
	before, _ := mem.read()
	streamCtx, closeStreams := context.WithCancel(ctx)
	defer closeStreams()
	var bodies []io.Closer
	defer func() {
		for _, b := range bodies {
			b.Close()
		}
	}()
	for i, path := range paths {
		req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, base+path, nil)
		req.Header.Set("Accept-Encoding", browserAcceptEncoding)
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("stream %d: %w", i+1, err)
		}
		if i == 0 {
			fmt.Fprintf(stdout, "streams: Content-Encoding %q for Accept-Encoding %q\n", res.Header.Get("Content-Encoding"), browserAcceptEncoding)
		}
		// Read the first render's bytes, then keep the stream open unread.
		bodies = append(bodies, res.Body)
		buf := make([]byte, 64<<10)
		deadline := time.Now().Add(10 * time.Second)
		got := 0
		for got < 1000 && time.Now().Before(deadline) {
			n, err := res.Body.Read(buf)
			got += n
			if err != nil {
				break
			}
		}
	}
	time.Sleep(time.Second)
	after, hwm := mem.read()
	fmt.Fprintf(stdout, "streams: %d open; server RSS %d MB before, %d MB after (VmHWM %d MB): %d KB per stream\n",
		o.streams, before/1024, after/1024, hwm/1024, (after-before)/int64(o.streams))
	return nil
}
