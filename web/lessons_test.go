package web

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestLessonRoutes(t *testing.T) {
	url := lessonsSite(t)
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/lessons", 200, "Choosing a policy"},
		{"/lessons/sliding-log", 200, "800 MB"},
		{"/lessons/sliding-log?limit=7&keys=3", 200, "168 B"},
		{"/lessons/sliding-log?limit=banana", 200, "is not a whole number"},
		{"/lessons/nope", 404, "Page not found"},
		{"/exercises", 200, "try-it-1-exact"},
		{"/exercises/try-it-1-exact?seed=42", 200, "variant 42"},
		{"/exercises/nope", 404, "Page not found"},
	} {
		res := get(t, url+tt.path)
		if res.status != tt.status || !strings.Contains(res.body, tt.want) {
			t.Errorf("GET %s: status %d, want %d with %q", tt.path, res.status, tt.status, tt.want)
		}
	}
}

func TestExerciseAnswerAsPlainFormPost(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		id   string
		form url.Values
		want string
	}{
		{"try-it-2-exact", url.Values{"answer": {"36"}}, ">Right<"},
		{"try-it-2-exact", url.Values{"answer": {"36000ms"}}, ">Right<"},
		{"try-it-2-exact", url.Values{"answer": {"35 s"}}, "1 s early"},
		{"try-it-2-exact", url.Values{"answer": {"whenever"}}, "can&#39;t be read"},
		{"try-it-3-floor", url.Values{"choice": {"sliding-log", "sliding-counter/floor"}}, ">Right<"},
		{"try-it-3-exact", url.Values{"choice": {"sliding-log", "sliding-counter/exact"}}, "Not quite"},
	} {
		res, err := http.PostForm(base+"/exercises/"+tt.id, tt.form)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(body.String(), tt.want) {
			t.Errorf("POST %s %v: status %d, want %q in the page", tt.id, tt.form, res.StatusCode, tt.want)
		}
	}
}

func TestExerciseAnswerThroughDatastar(t *testing.T) {
	base := lessonsSite(t)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("answer", "no")
	_ = mw.WriteField("seed", "0")
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"/exercises/try-it-1-exact", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Datastar-Request", "true")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q, want an event stream", ct)
	}
	events := parseEvents(t, res.Body)
	found := false
	for _, ev := range events {
		html := strings.Join(ev.data, "\n")
		found = found || ev.name == string(EventMergeFragments) && strings.Contains(html, `id="feedback-slot"`) && strings.Contains(html, ">Right<")
	}
	if !found {
		t.Errorf("no event merges the feedback slot saying Right: %q", events)
	}
}
