package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Mode sessions reproduces the flood issue 8 describes: address A opens
// playgrounds at -flood a second while address B, another loopback address
// (127.0.0.2: Linux answers for all of 127.0.0.0/8), opens one every 200 ms,
// as an honest visitor reloading would. It reports whether B always got a
// page, and what A got.

// floodWorkers bounds A's requests in flight, so the tool's own goroutines
// and connections stay bounded whatever the server does.
const floodWorkers = 64

// clientFrom is an HTTP client whose connections leave from local address ip.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: floodWorkers}}
}

type visit struct {
	status  int // 0: no answer
	latency time.Duration
}

func getPage(ctx context.Context, c *http.Client, url string) visit {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return visit{}
	}
	res, err := c.Do(req)
	if err != nil {
		return visit{latency: time.Since(start)}
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return visit{status: res.StatusCode, latency: time.Since(start)}
}

func runSessions(ctx context.Context, o options, base string, mem *memSampler, stdout io.Writer) error {
	a, b := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
	if v := getPage(ctx, b, base+"/play"); v.status == 0 {
		return fmt.Errorf("address B (127.0.0.2) cannot reach the server: %v", v)
	}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	go mem.sample(sampleCtx, 50*time.Millisecond)
	runCtx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()

	var mu sync.Mutex
	aStatus := map[int]int{}
	var bVisits []visit
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				v := getPage(ctx, b, base+"/play")
				mu.Lock()
				bVisits = append(bVisits, v)
				mu.Unlock()
			}
		}
	})
	slots := make(chan struct{}, floodWorkers)
	t := time.NewTicker(time.Second / time.Duration(o.flood))
	sent := 0
flood:
	for {
		select {
		case <-runCtx.Done():
			break flood
		case <-t.C:
			select {
			case slots <- struct{}{}:
			default:
				mu.Lock()
				aStatus[-1]++ // all workers busy: not sent
				mu.Unlock()
				continue
			}
			sent++
			wg.Go(func() {
				defer func() { <-slots }()
				v := getPage(ctx, a, base+"/play")
				mu.Lock()
				aStatus[v.status]++
				mu.Unlock()
			})
		}
	}
	t.Stop()
	wg.Wait()
	stopSampling()

	ok, lat := 0, make([]time.Duration, 0, len(bVisits))
	for _, v := range bVisits {
		if v.status == http.StatusOK {
			ok++
		}
		lat = append(lat, v.latency)
	}
	slices.Sort(lat)
	rss, hwm := mem.read()
	fmt.Fprintf(stdout, "sessions: address A (127.0.0.1) sent %d GET /play in %v (%d a second wanted); answers by status (-1: not sent, all %d workers busy): %v\n",
		sent, o.duration, o.flood, floodWorkers, aStatus)
	fmt.Fprintf(stdout, "  address B (127.0.0.2), one GET /play every 200 ms: %d of %d answered 200; latency p50 %v, max %v\n",
		ok, len(bVisits), pct(lat, 50).Round(time.Millisecond), pct(lat, 100).Round(time.Millisecond))
	fmt.Fprintf(stdout, "  B always got a playground: %v\n", ok == len(bVisits) && len(bVisits) > 0)
	fmt.Fprintf(stdout, "  server RSS %d MB at the end, VmHWM %d MB; %s\n", rss/1024, hwm/1024, loadAverage())
	return nil
}
