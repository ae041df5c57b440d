package play

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
)

// uploadScenario posts data to /play/load as the load form's file field.
func uploadScenario(t *testing.T, url string, data string) response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(fw, data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url+"/play/load", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(got)}
}

// TestPlayProblemAtTheTop: a shared link or a loaded scenario the page
// cannot open used to answer 400 with what looked like an ordinary empty
// playground, its reason 2,000 px down next to the load form. The reason
// now comes first, as an alert the browser focuses, with what the
// playground below is instead.
func TestPlayProblemAtTheTop(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	tooMany := fmt.Sprintf(`{"limit":2,"windowMs":1000,"requests":[{"at":1,"count":%d}]}`, play.MaxRequests+1)
	for _, c := range []struct {
		name string
		do   func() response
		want []string // in the problem, in this order
	}{
		{"garbage link", func() response { return get(t, url+"/play?s=garbage") },
			[]string{"The shared link could not be opened", "the shared link: the link", "default playground"}},
		{"uploaded file missing a field", func() response { return uploadScenario(t, url, `{"limit":5}`) },
			[]string{"Nothing was loaded", "windowMs", "missing", "default playground", "load form"}},
		{"too many requests", func() response { return uploadScenario(t, url, tooMany) },
			[]string{"Nothing was loaded", fmt.Sprintf("holds at most %d requests", play.MaxRequests), "default playground"}},
		{"bad clock time only", func() response { return get(t, url+"/play?t=soon") },
			[]string{"The shared link could not be opened", `the shared link: t: "soon" is not a clock time`, "clock at 0 s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := c.do()
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", res.status)
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
			if err != nil {
				t.Fatal(err)
			}
			problem := doc.Find(`[data-testid="play-problem"]`)
			if problem.Length() != 1 {
				t.Fatalf("%d problem notices, want 1", problem.Length())
			}
			for attr, want := range map[string]string{"role": "alert", "tabindex": "-1", "autofocus": ""} {
				if got, ok := problem.Attr(attr); !ok || got != want {
					t.Errorf("problem notice %s = %q (present %v), want %q", attr, got, ok, want)
				}
			}
			// First on the page: before the controls and the lanes.
			if problem.NextAllFiltered(".play-grid").Length() != 1 {
				t.Error("the problem notice does not come before the playground's controls")
			}
			text := strings.Join(strings.Fields(problem.Text()), " ")
			at := 0
			for _, w := range c.want {
				i := strings.Index(text[at:], w)
				if i < 0 {
					t.Fatalf("problem notice %q: no %q after position %d", text, w, at)
				}
				at += i + len(w)
			}
			if !strings.HasPrefix(doc.Find("title").Text(), "Problem: ") {
				t.Errorf("title %q does not start with the problem", doc.Find("title").Text())
			}
		})
	}
	if res := get(t, url+"/play"); strings.Contains(res.body, `data-testid="play-problem"`) {
		t.Error("a playground without a problem shows a problem notice")
	}
}
