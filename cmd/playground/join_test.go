package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
)

// projectorPage opens a playground on the server at url, starts a room
// over it as its presenter, and returns the projector's page.
func projectorPage(t *testing.T, url string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	read := func(res *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d, %v", res.Request.Method, res.Request.URL, res.StatusCode, err)
		}
		return string(b)
	}
	m := regexp.MustCompile(`/play/([A-Za-z0-9_-]+)/stream`).FindStringSubmatch(read(c.Get(url + "/play")))
	if m == nil {
		t.Fatal("the playground names no session")
	}
	return read(c.Post(url+"/play/"+m[1]+"/room", "application/x-www-form-urlencoded", nil))
}

// The projector offers only addresses the server answers at: listening
// on 127.0.0.1 it offers none and says why and how to fix it; with
// -public-url it shows that address whatever it listens on.
func TestProjectorJoinAddressesAreOnesTheServerListensOn(t *testing.T) {
	addr := freeAddr(t)
	port := addr[strings.LastIndex(addr, ":")+1:]
	startServer(t, "-addr", addr, "-memory")
	page := projectorPage(t, "http://"+addr)
	for _, want := range []string{"Phones cannot reach this server", "listens on 127.0.0.1 only", "-addr :" + port, "-public-url"} {
		if !strings.Contains(page, want) {
			t.Errorf("the projector of a server on %s does not say %q", addr, want)
		}
	}
	if strings.Contains(page, `data-testid="room-qr"`) || strings.Contains(page, "present?via=") {
		t.Errorf("the projector of a server on %s offers a join address it does not listen on", addr)
	}

	public := freeAddr(t)
	startServer(t, "-addr", public, "-memory", "-public-url", "http://192.0.2.10:8080")
	page = projectorPage(t, "http://"+public)
	if !strings.Contains(page, `data-testid="room-qr"`) || !strings.Contains(page, "http://192.0.2.10:8080/join/") {
		t.Errorf("with -public-url the projector does not show its join address and QR code")
	}
}
