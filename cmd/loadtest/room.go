package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/windowlab/playground/internal/procstat"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web"
)

// Bounds of the room mode, whatever the flags say.
const (
	// minFireEvery keeps a run's fires under maxDuration/minFireEvery
	// (3,000), well inside a scenario's 10,000 requests.
	minFireEvery = 100 * time.Millisecond
	// openParallel is how many followers connect at once.
	openParallel = 50
	// readyWithin is how long the followers have to get their first frame.
	readyWithin = 2 * time.Minute
)

// requestCount finds the status line's "N requests" ("1 request" in the
// singular): a fire adds one, so the count a follower sees says which
// fires reached it. Matching the plural only once hid the first fire of a
// room started empty until the second arrived, half a second later, which
// the p99 then reported as the server's.
var requestCount = regexp.MustCompile(`(\d+) requests?\b`)

// statusCount is the request count in a status line.
func statusCount(line []byte) (int, bool) {
	m := requestCount.FindSubmatch(line)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(m[1]))
	return n, err == nil
}

// statusMarker starts the status line, which holds the request count.
const statusMarker = `id="room-status"`

// clockMarker is in every update while the clock plays (the clock moved).
const clockMarker = `id="room-clock"`

// fireLog holds when each fire was sent, by the request count it makes.
type fireLog struct {
	mu sync.Mutex
	at map[int]time.Time
}

func (l *fireLog) sent(count int, t time.Time) {
	l.mu.Lock()
	l.at[count] = t
	l.mu.Unlock()
}

// arrival is one fire reaching one follower.
type arrival struct {
	fire    int // the request count the fire made
	latency time.Duration
}

// reached returns the arrivals of the fires from count from+1 to to.
func (l *fireLog) reached(from, to int, now time.Time) []arrival {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []arrival
	for c := from + 1; c <= to; c++ {
		if t, ok := l.at[c]; ok {
			out = append(out, arrival{c, now.Sub(t)})
		}
	}
	return out
}

// follower is what one follower saw.
type follower struct {
	encoding string
	first    int // the request count in the first frame
	arrivals []arrival
	updates  []time.Time // when each update with the clock arrived
	err      error
}

// runRoom starts a room from a /play session, opens o.followers cookie-less
// phone streams of it as a browser would, plays the clock and fires a
// request every o.fireEvery plus up to one update interval at random (and
// the POST's own time) for o.duration, and reports action-to-event
// latency, updates a second per follower, the server's memory, and the CPU
// both sides used (the followers run on the same machine as the server).
// followersPerAddress is how many followers share a source address: a
// class behind one school address, within the server's per-address cap.
const followersPerAddress = 250

func runRoom(ctx context.Context, o options, base string, followBases []string, mem *memSampler, stdout io.Writer) error {
	jar, _ := cookiejar.New(nil)
	control := &http.Client{
		Jar:     jar,
		Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	roomPath, err := openRoom(base, control)
	if err != nil {
		return err
	}
	drive := func(action string) (time.Duration, error) {
		start := time.Now()
		res, err := control.Post(base+roomPath+"/play/"+action, "application/json", strings.NewReader(`{"cost": 1}`))
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("POST %s/play/%s = %d: %s", roomPath, action, res.StatusCode, res.Header.Get("X-Problem"))
		}
		return time.Since(start), nil
	}

	time.Sleep(500 * time.Millisecond)
	before, _ := mem.read()
	streamCtx, closeStreams := context.WithCancel(ctx)
	defer closeStreams()
	fires := &fireLog{at: map[int]time.Time{}}
	// A classroom's phones come from many addresses, and the server caps
	// the streams one address may hold (web.StreamsPerClient): the
	// followers leave from loopback addresses of their own, at most
	// followersPerAddress each (Linux answers for all of 127.0.0.0/8).
	clients := make([]*http.Client, (o.followers+followersPerAddress-1)/followersPerAddress)
	for g := range clients {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+g))}}
		clients[g] = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: followersPerAddress, DialContext: d.DialContext}}
	}
	followers := make([]follower, o.followers)
	var connected atomic.Int64
	var ready, done sync.WaitGroup
	gate := make(chan struct{}, openParallel)
	for i := range followers {
		ready.Add(1)
		done.Go(func() {
			gate <- struct{}{}
			f := &followers[i]
			first := true
			signal := func() {
				if first {
					first = false
					<-gate
					ready.Done()
				}
			}
			defer signal()
			// With replicas the followers are dealt out between them,
			// the presenter's fires reaching the second through NATS.
			f.err = follow(streamCtx, clients[i/followersPerAddress], followBases[i%len(followBases)]+roomPath+"/stream?view=phone", f, fires, signal, &connected)
		})
	}
	waited := make(chan struct{})
	go func() { ready.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(readyWithin):
		return fmt.Errorf("the followers did not all get a first frame within %v", readyWithin)
	}
	opened := connected.Load()
	time.Sleep(time.Second)
	idle, _ := mem.read()
	count := 0
	for _, f := range followers {
		count = max(count, f.first)
	}

	sampleCtx, stopSampling := context.WithCancel(ctx)
	go mem.sample(sampleCtx, 100*time.Millisecond)
	clientCPU, serverCPU := selfCPU(), processCPU(mem.pid)
	start := time.Now()
	if _, err := drive("toggle"); err != nil {
		stopSampling()
		return err
	}
	var fireTook []time.Duration
	var fireErr error
	// Fires are o.fireEvery apart plus a random part of the hub's update
	// interval: at exactly o.fireEvery (a multiple of the interval) every
	// fire met the hub's tick at the same phase, so a whole run measured
	// one waiting time, the median included, not the spread a presenter
	// meets.
	end := start.Add(o.duration)
	for {
		time.Sleep(o.fireEvery + rand.N(web.UpdateInterval))
		if time.Now().After(end) {
			break
		}
		count++
		fires.sent(count, time.Now())
		took, err := drive("fire")
		if err != nil {
			// A fire the server did not answer is a finding: report it
			// with the rest instead of dropping the run.
			fireErr = err
			break
		}
		fireTook = append(fireTook, took)
	}
	time.Sleep(time.Second) // the last fire's events
	stop := time.Now()
	clientCPU, serverCPU = selfCPU()-clientCPU, processCPU(mem.pid)-serverCPU
	_, _ = drive("toggle")
	stopSampling()
	playing, hwm := mem.read()
	still := connected.Load()
	closeStreams()
	done.Wait()

	var lat []time.Duration
	var rates []float64
	encodings := map[string]int{}
	var failed []error
	// Updates are counted from a second after play started (the first tick
	// only starts the clock) until the last fire's events were in.
	from := start.Add(time.Second)
	window := stop.Sub(from).Seconds()
	slowest := map[int]time.Duration{} // each fire's slowest arrival
	fastest := map[int]time.Duration{} // and its first
	for _, f := range followers {
		for _, a := range f.arrivals {
			lat = append(lat, a.latency)
			slowest[a.fire] = max(slowest[a.fire], a.latency)
			if d, ok := fastest[a.fire]; !ok || a.latency < d {
				fastest[a.fire] = a.latency
			}
		}
		encodings[f.encoding]++
		n := 0
		for _, t := range f.updates {
			if !t.Before(from) && !t.After(stop) {
				n++
			}
		}
		rates = append(rates, float64(n)/window)
		if f.err != nil && !errors.Is(f.err, context.Canceled) {
			failed = append(failed, f.err)
		}
	}
	slices.Sort(lat)
	slices.Sort(rates)
	slices.Sort(fireTook)
	expected := len(fireTook) * o.followers
	fmt.Fprintf(stdout, "room: %s with %d phone followers (Accept-Encoding %q; got %v)\n", roomPath, o.followers, browserAcceptEncoding, encodings)
	fmt.Fprintf(stdout, "  connected: %d opened, %d still connected at the end\n", opened, still)
	fmt.Fprintf(stdout, "  clock playing %v, %d fires (one every %v plus up to %v at random), each POST answered p50 %v, p99 %v\n", o.duration, len(fireTook), o.fireEvery, web.UpdateInterval, pct(fireTook, 50), pct(fireTook, 99))
	fmt.Fprintf(stdout, "  action to event: %d of %d expected arrivals, p50 %v, p99 %v, max %v\n", len(lat), expected, pct(lat, 50), pct(lat, 99), pct(lat, 100))
	// The first follower to hear of a fire bounds what the server took
	// (the POST, the hub's pacing and render); the rest is fan-out and
	// this tool's own reading of the other streams.
	firsts := slices.Sorted(maps.Values(fastest))
	fmt.Fprintf(stdout, "  first follower to see each fire: p50 %v, p99 %v, max %v\n", pct(firsts, 50), pct(firsts, 99), pct(firsts, 100))
	fmt.Fprintf(stdout, "  slowest fires (the fire's number in the run: its slowest arrival): %s\n", slowestFires(slowest, count-len(fireTook), 5))
	fmt.Fprintf(stdout, "  updates a second per follower while playing: min %.1f, median %.1f, max %.1f\n", pctf(rates, 0), pctf(rates, 50), pctf(rates, 100))
	fmt.Fprintf(stdout, "  server RSS %d MB before the followers, %d MB with them idle, %d MB at the end of play (peak %d MB sampled, VmHWM %d MB): %d KB per follower\n",
		before/1024, idle/1024, playing/1024, mem.peak/1024, hwm/1024, (max(playing, idle)-before)/int64(o.followers))
	fmt.Fprintf(stdout, "  CPU while playing (%.0f s): server %.0f%% of one core, this tool (the followers' reading and gunzipping) %.0f%%; %s\n",
		stop.Sub(start).Seconds(), 100*serverCPU.Seconds()/stop.Sub(start).Seconds(), 100*clientCPU.Seconds()/stop.Sub(start).Seconds(), loadAverage())
	if fireErr != nil {
		fmt.Fprintf(stdout, "  firing stopped after %d fires: %v\n", len(fireTook), fireErr)
	}
	if len(failed) > 0 {
		fmt.Fprintf(stdout, "  %d followers' streams failed, e.g. %v\n", len(failed), failed[0])
	}
	return nil
}

// follow reads one follower's stream until it ends, decompressing as the
// server said, and records which fires' counts arrived when.
func follow(ctx context.Context, client *http.Client, url string, f *follower, fires *fireLog, ready func(), connected *atomic.Int64) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", browserAcceptEncoding)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET stream = %d: %s", res.StatusCode, res.Header.Get("X-Problem"))
	}
	f.encoding = res.Header.Get("Content-Encoding")
	var body io.Reader = res.Body
	switch f.encoding {
	case "":
	case "gzip":
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			return err
		}
		body = zr
	default:
		return fmt.Errorf("Content-Encoding %q: this tool reads only gzip", f.encoding)
	}
	connected.Add(1)
	defer connected.Add(-1)
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 16<<10), 4<<20)
	seen := -1
	for sc.Scan() {
		line := sc.Bytes()
		now := time.Now()
		if bytes.Contains(line, []byte(clockMarker)) {
			f.updates = append(f.updates, now)
		}
		// The regexp only reads the status line: run over every lane's
		// HTML it cost this tool more CPU than the server spent.
		if !bytes.Contains(line, []byte(statusMarker)) {
			continue
		}
		if n, ok := statusCount(line); ok {
			if seen < 0 {
				f.first, seen = n, n
				ready()
			} else if n > seen {
				f.arrivals = append(f.arrivals, fires.reached(seen, n, now)...)
				seen = n
			}
		}
	}
	return sc.Err()
}

// slowestFires names the n fires whose slowest arrival was latest,
// numbered from 1 in the order they were sent (first is the request count
// before the first fire).
func slowestFires(slowest map[int]time.Duration, first, n int) string {
	fires := slices.Collect(maps.Keys(slowest))
	slices.SortFunc(fires, func(a, b int) int { return cmp.Compare(slowest[b], slowest[a]) })
	var parts []string
	for _, c := range fires[:min(n, len(fires))] {
		parts = append(parts, fmt.Sprintf("#%d: %v", c-first, slowest[c].Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// pctf is the p-th percentile of sorted values (0: the minimum).
func pctf(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)*p/100, len(sorted)-1)]
}

// selfCPU is the user and system time this process has used.
func selfCPU() time.Duration {
	d, _ := procstat.SelfCPU()
	return d
}

// processCPU is the user and system time process pid has used, from
// /proc/<pid>/stat (in clock ticks of 1/100 s, Linux's USER_HZ).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after it do not.
	_, rest, ok := strings.Cut(string(data), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// maxFollowers is the most followers a run opens: the room's own bound on
// attendees (a larger run would measure refusals), within the stream cap.
func maxFollowers() int { return min(room.DefaultBounds().Followers, maxStreams) }
