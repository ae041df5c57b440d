package play

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"reflect"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/simulate"
)

// controlClient is a browser's cookie jar without its redirects.
func controlClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// send makes one request with the given headers and returns its status and body.
func send(t *testing.T, c *http.Client, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// The browser that opened a session controls it through a cookie; the
// session's id, which the page's links and stream carry, lets others watch
// only. Cross-site posts are refused whatever cookies they carry.
func TestPlayOnlyTheOpeningBrowserControls(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	owner := controlClient(t)
	res, err := owner.Get(url + "/play")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	id := doc.Find("#play-stream").AttrOr("data-session", "")
	got, err := store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("the page's session %q: %v", id, err)
	}
	sess := webtest.Live(t, store, got)
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == ControlCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/play/"+id || cookie.Value != sess.ControlToken() {
		t.Fatalf("control cookie %+v: want HttpOnly, SameSite=Strict, Path=/play/%s, the session's token", cookie, id)
	}
	if strings.Contains(string(page), sess.ControlToken()) {
		t.Fatal("the page shows the control token")
	}

	stranger := controlClient(t) // holds the id, not the cookie
	other, err := store.New(play.DefaultScenario())
	if err != nil {
		t.Fatal(err)
	}
	base := url + "/play/" + id
	fire := `{"cost": 1}`
	for i, c := range []struct {
		what   string
		client *http.Client
		header map[string]string
		status int
		fires  int64 // requests in the session afterwards
	}{
		{"a stranger", stranger, map[string]string{"Content-Type": "application/json"}, http.StatusForbidden, 0},
		{"a stranger's page", stranger, map[string]string{"Datastar-Request": "true"}, http.StatusForbidden, 0},
		{"another session's cookie", clientWith(t, url, other), nil, http.StatusForbidden, 0},
		{"the owner", owner, map[string]string{"Datastar-Request": "true", "Sec-Fetch-Site": "same-origin", "Origin": url}, http.StatusOK, 1},
		{"the owner by curl", owner, nil, http.StatusOK, 2},
		{"the owner's cookie from another site", owner, map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}, http.StatusForbidden, 2},
		{"the owner's cookie from a same-site subdomain", owner, map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden, 2},
		{"an old browser on another site", owner, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, http.StatusForbidden, 2},
	} {
		status, body := send(t, c.client, http.MethodPost, base+"/fire", fire, c.header)
		if status != c.status {
			t.Errorf("step %d (%s): status = %d, want %d (%s)", i, c.what, status, c.status, body)
		}
		if got := sess.View().Total; got != c.fires {
			t.Errorf("step %d (%s): the session holds %d requests, want %d", i, c.what, got, c.fires)
		}
		if c.header["Datastar-Request"] == "true" && status == http.StatusForbidden && !strings.Contains(body, "can watch this playground but not change it") {
			t.Errorf("step %d (%s): the page is not told why: %q", i, c.what, body)
		}
	}
	// Every action goes through the same check.
	before := sess.Scenario()
	for _, a := range actions {
		if status, _ := send(t, stranger, http.MethodPost, base+"/"+a.path, `{}`, nil); status != http.StatusForbidden {
			t.Errorf("a stranger's POST %s: %d, want 403", a.path, status)
		}
	}
	if !reflect.DeepEqual(sess.Scenario(), before) {
		t.Error("strangers' actions changed the scenario")
	}
	// Watching needs only the id.
	for _, path := range []string{"/scenario.json", "/decisions.json", "/link"} {
		if status, _ := send(t, stranger, http.MethodGet, base+path, "", nil); status != http.StatusOK && status != http.StatusSeeOther {
			t.Errorf("a stranger's GET %s: %d, want it served", path, status)
		}
	}
}

// clientWith is a browser holding sess's control cookie.
func clientWith(t *testing.T, url string, sess webtest.Owned) *http.Client {
	t.Helper()
	c := controlClient(t)
	req, _ := http.NewRequest(http.MethodGet, url+"/play/"+sess.ID()+"/", nil)
	c.Jar.SetCookies(req.URL, []*http.Cookie{{Name: ControlCookie, Value: sess.ControlToken(), Path: "/play/" + sess.ID()}})
	return c
}

// Every state-changing route refuses cross-site posts: /api/simulate too,
// while a client sending neither Origin nor Sec-Fetch-Site (curl) is served.
func TestCrossSitePostsAreRefused(t *testing.T) {
	_, url, _ := newTestServer(t, simulate.API(), Playground(play.NewStore(nil)))
	sc := `{"limit": 1, "windowMs": 1000, "requests": [{"at": 0}]}`
	c := controlClient(t)
	for i, tc := range []struct {
		path   string
		header map[string]string
		status int
	}{
		{"/api/simulate", nil, http.StatusOK},
		{"/api/simulate", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"/api/simulate", map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}, http.StatusForbidden},
		{"/api/simulate", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"/api/simulate", map[string]string{"Origin": url}, http.StatusOK},
		{"/play/load", map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/x-www-form-urlencoded"}, http.StatusForbidden},
		{"/exercises/x", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	} {
		status, body := send(t, c, http.MethodPost, url+tc.path, sc, tc.header)
		if status != tc.status {
			t.Errorf("step %d: POST %s with %v: %d, want %d (%.100s)", i, tc.path, tc.header, status, tc.status, body)
		}
		if tc.status == http.StatusForbidden && !strings.Contains(body, "another site") {
			t.Errorf("step %d: the refusal does not say why: %q", i, body)
		}
	}
}
