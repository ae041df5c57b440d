package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Mode abuse replays, one at a time, what a careful attacker did to the
// server (issue 17), each bounded and from loopback addresses of its own
// (127.0.0.2 and up are other clients; Linux answers for all of
// 127.0.0.0/8), and prints what it got and the server's peak memory:
//
//	answers   20 cookie-less answers to a room's question, then the projector's count
//	pairing   5 wrong pairing codes every 0.2 s from an attendee's address, then the presenter's device redeems
//	slowbody  one /api/simulate body sent a byte a second while another address sends 15 small scenarios
//	joincodes -duration of join-code guesses from one address, 64 at a time
//	projector 1,100 phone streams from one address, then the presenter's projector from another
//	headers   500 connections each sending 1 MB of header that never ends
//	streams   1,000 /play streams from one address
//	flood     10 rooms from 10 addresses, their screens closed for 65 s, then 750 GET /play from 5 addresses
var abuses = []string{"answers", "pairing", "slowbody", "joincodes", "projector", "headers", "streams", "flood"}

// maxAbuseConns bounds the connections one abuse run opens.
const maxAbuseConns = 1_100

var (
	pairCode = regexp.MustCompile(`data-testid="pair-code"[^>]*>([A-Z2-9]{8})<`)
	answered = regexp.MustCompile(`(\d+) answered`)
)

// browser is an HTTP client from local address ip with its own cookies,
// redirects not followed.
func browser(ip string) *http.Client {
	c := clientFrom(ip)
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func readAll(res *http.Response, err error) (int, http.Header, string, error) {
	if err != nil {
		return 0, nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b), err
}

// openPlay opens a playground session for client and returns its stream's
// path (/play/<id>/stream), from the session the page names on its stream
// element.
func openPlay(base string, client *http.Client) (string, error) {
	status, _, page, err := readAll(client.Get(base + "/play"))
	if err != nil {
		return "", err
	}
	m := sessionAttr.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil {
		return "", fmt.Errorf("GET /play = %d, and no session in the page", status)
	}
	return "/play/" + m[1] + "/stream", nil
}

// openRoom opens a playground and a room over it for presenter, and
// returns the room's path (/room/<id>).
func openRoom(base string, presenter *http.Client) (string, error) {
	stream, err := openPlay(base, presenter)
	if err != nil {
		return "", err
	}
	session := strings.TrimSuffix(stream, "/stream")
	res, err := presenter.Post(base+session+"/room", "application/x-www-form-urlencoded", nil)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(loc, "/present") {
		return "", fmt.Errorf("POST %s/room = %d (Location %q), want 303 to /room/<id>/present", session, res.StatusCode, loc)
	}
	return strings.TrimSuffix(loc, "/present"), nil
}

func runAbuse(ctx context.Context, o options, base string, mem *memSampler, stdout io.Writer) error {
	sampleCtx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	before, _ := mem.read()
	go mem.sample(sampleCtx, 50*time.Millisecond)
	var err error
	switch o.abuse {
	case "answers":
		err = abuseAnswers(base, stdout)
	case "pairing":
		err = abusePairing(base, stdout)
	case "slowbody":
		err = abuseSlowBody(ctx, base, stdout)
	case "joincodes":
		err = abuseJoinCodes(ctx, o, base, stdout)
	case "projector":
		err = abuseProjector(ctx, base, stdout)
	case "headers":
		err = abuseHeaders(ctx, base, stdout)
	case "streams":
		err = abuseStreams(ctx, base, stdout)
	case "flood":
		err = abuseFlood(ctx, base, stdout)
	}
	stopSampling()
	_, peak := mem.read()
	fmt.Fprintf(stdout, "server memory: %s before, peak %s\n", mb(before), mb(peak))
	return err
}

// mb says kilobytes (as /proc says them) in megabytes.
func mb(kb int64) string {
	if kb <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d MB", kb>>10)
}

func abuseAnswers(base string, stdout io.Writer) error {
	presenter := browser("127.0.0.1")
	roomPath, err := openRoom(base, presenter)
	if err != nil {
		return err
	}
	if status, h, _, err := readAll(presenter.Post(base+roomPath+"/ask", "application/json", strings.NewReader(`{"askKind":"admit","cost":1}`))); err != nil || status != http.StatusOK {
		return fmt.Errorf("asking: %d %s %v", status, h.Get("X-Problem"), err)
	}
	statuses := map[int]int{}
	signals := `{"q1a0":"1","q1a1":"1","q1a2":"1","q1a3":"1"}`
	for range 20 {
		status, _, _, err := readAll(clientFrom("127.0.0.3").Post(base+roomPath+"/answer?q=1", "application/json", strings.NewReader(signals)))
		if err != nil {
			return err
		}
		statuses[status]++
	}
	n, err := projectorAnswered(base, roomPath, presenter)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "answers: 20 cookie-less answers got %v; the projector then said %q\n", statuses, n)
	return nil
}

// projectorAnswered reads the projector stream's first frame and returns
// its "N answered".
func projectorAnswered(base, roomPath string, presenter *http.Client) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+roomPath+"/stream?view=projector", nil)
	res, err := presenter.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 8<<10)
	for len(buf) < cap(buf) {
		n, err := res.Body.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if m := answered.FindString(string(buf)); m != "" {
			return m, nil
		}
		if err != nil {
			break
		}
	}
	return "", fmt.Errorf("the projector's stream said nothing about answers")
}

func abusePairing(base string, stdout io.Writer) error {
	redeemed := map[int]int{}
	for round := range 5 {
		// A room of its own each round: every code redeemed pairs a device.
		presenter := browser("127.0.0.1")
		roomPath, err := openRoom(base, presenter)
		if err != nil {
			return err
		}
		_, _, page, err := readAll(presenter.Post(base+roomPath+"/pair/new", "application/x-www-form-urlencoded", nil))
		if err != nil {
			return err
		}
		m := pairCode.FindStringSubmatch(page)
		if m == nil {
			return fmt.Errorf("round %d: the pairing page shows no code", round+1)
		}
		attendee := clientFrom("127.0.0.3")
		for range 5 {
			if _, _, _, err := readAll(attendee.PostForm(base+roomPath+"/pair/redeem", url.Values{"code": {"22222222"}})); err != nil {
				return err
			}
			time.Sleep(200 * time.Millisecond)
		}
		status, _, _, err := readAll(browser("127.0.0.1").PostForm(base+roomPath+"/pair/redeem", url.Values{"code": {m[1]}}))
		if err != nil {
			return err
		}
		redeemed[status]++
	}
	fmt.Fprintf(stdout, "pairing: after 5 wrong codes from an attendee's address, the presenter's second device got %v in 5 rounds (303: paired)\n", redeemed)
	return nil
}

func abuseSlowBody(ctx context.Context, base string, stdout io.Writer) error {
	body := `{"limit": 5, "windowMs": 1000, "requests": [{"at": 0}]}` + strings.Repeat(" ", 64)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}}
	conn, err := d.DialContext(ctx, "tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return err
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/simulate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	dripCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for i := 0; i < len(body) && dripCtx.Err() == nil; i++ {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	time.Sleep(500 * time.Millisecond)
	other := clientFrom("127.0.0.2")
	statuses := map[int]int{}
	retry := map[string]int{}
	for range 15 {
		status, h, _, err := readAll(other.Post(base+"/api/simulate", "application/json", strings.NewReader(body)))
		if err != nil {
			return err
		}
		statuses[status]++
		if status != http.StatusOK {
			retry[h.Get("Retry-After")]++
		}
		time.Sleep(time.Second)
	}
	fmt.Fprintf(stdout, "slowbody: while one body dripped a byte a second, another address's 15 scenarios got %v (Retry-After of refusals: %v)\n", statuses, retry)
	return nil
}

func abuseJoinCodes(ctx context.Context, o options, base string, stdout io.Writer) error {
	runCtx, stop := context.WithTimeout(ctx, min(o.duration, 30*time.Second))
	defer stop()
	guesser := clientFrom("127.0.0.3")
	var looked, refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range floodWorkers {
		wg.Go(func() {
			for i := 0; runCtx.Err() == nil; i++ {
				v := getPage(runCtx, guesser, fmt.Sprintf("%s/join?code=%05d", base, (w*1_000_003+i)%100_000))
				switch v.status {
				case http.StatusTooManyRequests:
					refused.Add(1)
				case 0:
				default:
					looked.Add(1)
				}
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stdout, "joincodes: one address had %.0f codes a second looked up (%.0f a second refused with 429) over %.0f s\n", float64(looked.Load())/secs, float64(refused.Load())/secs, secs)
	return nil
}

// holdStreams opens n streams of url from ip, each until ctx ends, and
// returns how many were answered 200.
func holdStreams(ctx context.Context, ip, url string, n int, jar http.CookieJar) map[int]int {
	c := clientFrom(ip)
	c.Timeout = 0
	c.Jar = jar
	c.Transport.(*http.Transport).MaxIdleConnsPerHost = n
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	gate := make(chan struct{}, floodWorkers)
	for range n {
		wg.Go(func() {
			gate <- struct{}{}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			res, err := c.Do(req)
			<-gate
			status := 0
			if err == nil {
				status = res.StatusCode
				if status == http.StatusOK {
					go func() { _, _ = io.Copy(io.Discard, res.Body); res.Body.Close() }()
				} else {
					res.Body.Close()
				}
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return statuses
}

func abuseProjector(ctx context.Context, base string, stdout io.Writer) error {
	presenter := browser("127.0.0.1")
	roomPath, err := openRoom(base, presenter)
	if err != nil {
		return err
	}
	hold, release := context.WithCancel(ctx)
	defer release()
	hog := holdStreams(hold, "127.0.0.3", base+roomPath+"/stream?view=phone", maxAbuseConns, nil)
	own := holdStreams(hold, "127.0.0.1", base+roomPath+"/stream?view=projector", 1, presenter.Jar)
	phone := holdStreams(hold, "127.0.0.2", base+roomPath+"/stream?view=phone", 1, nil)
	fmt.Fprintf(stdout, "projector: 1,100 phone streams from one address got %v; then the presenter's projector got %v and a real phone %v\n", hog, own, phone)
	return nil
}

func abuseHeaders(ctx context.Context, base string, stdout io.Writer) error {
	const conns, each = 500, 1 << 20
	addr := strings.TrimPrefix(base, "http://")
	line := "X-Pad: " + strings.Repeat("a", 1000) + "\r\n"
	var wg sync.WaitGroup
	var held, cut atomic.Int64
	hold, release := context.WithTimeout(ctx, 20*time.Second)
	defer release()
	gate := make(chan struct{}, floodWorkers)
	for range conns {
		wg.Go(func() {
			gate <- struct{}{}
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 3)}}
			c, err := d.DialContext(hold, "tcp", addr)
			if err != nil {
				<-gate
				cut.Add(1)
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "GET /play HTTP/1.1\r\nHost: x\r\n")
			sent := 0
			for sent < each && hold.Err() == nil {
				n, err := io.WriteString(c, line)
				sent += n
				if err != nil {
					break
				}
			}
			<-gate
			// A server that stops reading answers 431 and closes; one that
			// reads on holds the header, and answers nothing.
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			first := make([]byte, 12)
			if n, _ := io.ReadFull(c, first); n == 12 && strings.Contains(string(first), " 431") {
				cut.Add(1)
			} else {
				held.Add(1)
			}
			<-hold.Done() // the header never ends
		})
	}
	time.Sleep(15 * time.Second)
	release()
	wg.Wait()
	fmt.Fprintf(stdout, "headers: of %d connections each sending up to %d KB of unending header, %d were held, %d answered 431 and closed\n", conns, each>>10, held.Load(), cut.Load())
	return nil
}

func abuseStreams(ctx context.Context, base string, stdout io.Writer) error {
	stream, err := openPlay(base, clientFrom("127.0.0.1"))
	if err != nil {
		return err
	}
	hold, release := context.WithCancel(ctx)
	defer release()
	got := holdStreams(hold, "127.0.0.3", base+stream, maxStreams, nil)
	other := holdStreams(hold, "127.0.0.2", base+stream, 1, nil)
	time.Sleep(2 * time.Second)
	fmt.Fprintf(stdout, "streams: 1,000 /play streams from one address got %v; another address's got %v\n", got, other)
	return nil
}

func abuseFlood(ctx context.Context, base string, stdout io.Writer) error {
	type workshop struct {
		path      string
		presenter *http.Client
	}
	var rooms []workshop
	for i := range 10 {
		p := browser(fmt.Sprintf("127.0.0.%d", 10+i))
		path, err := openRoom(base, p)
		if err != nil {
			return err
		}
		rooms = append(rooms, workshop{path, p})
	}
	// The screens close; the sessions idle past the store's minute.
	select {
	case <-time.After(65 * time.Second):
	case <-ctx.Done():
		return ctx.Err()
	}
	flood := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for a := range 5 {
		c := clientFrom(fmt.Sprintf("127.0.0.%d", 30+a))
		gate := make(chan struct{}, 8)
		for range 150 {
			wg.Go(func() {
				gate <- struct{}{}
				v := getPage(ctx, c, base+"/play")
				<-gate
				mu.Lock()
				flood[v.status]++
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	shown := map[int]int{}
	for _, w := range rooms {
		status, _, _, err := readAll(clientFrom("127.0.0.2").Get(base + w.path))
		if err != nil {
			return err
		}
		shown[status]++
	}
	closed, _, _, err := readAll(rooms[0].presenter.Post(base+rooms[0].path+"/close", "application/json", strings.NewReader("{}")))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "flood: 750 GET /play from 5 addresses got %v; then the 10 rooms' pages got %v, and a presenter's End %d\n", flood, shown, closed)
	return nil
}
