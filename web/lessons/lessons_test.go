package lessons

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/web"
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
		{"/lessons/sliding-log?limit=banana", 400, "is not a whole number"},
		{"/lessons/ring-of-buckets?k=7", 400, "7 does not divide the 60 s window"},
		{"/lessons/ring-of-buckets?k=banana", 400, "k: “banana” is not a whole number"},
		{"/lessons/ring-of-buckets?k=5000", 400, "outside 1 to 1000"},
		{"/lessons/ring-of-buckets?k=12", 200, "With k = 12, each key keeps"},
		{"/lessons/ring-of-buckets?k=6", 200, "With k = 6, each key keeps"},
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

// The list's sentence counts the lessons it lists ("Seven short lessons"
// once stood above eight).
func TestLessonsIndexCountsItsLessons(t *testing.T) {
	res := get(t, lessonsSite(t)+"/lessons")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	n := doc.Find(`[data-testid="lesson-link"]`).Length()
	words := map[int]string{7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten"}
	intro := doc.Find(`[data-testid="lessons-index"] > p`).First().Text()
	if want := words[n] + " short lessons"; words[n] == "" || !strings.HasPrefix(intro, want) {
		t.Errorf("%d lessons listed under %q, want it to start %q", n, intro, want)
	}
}

// An exercise's answer draws the lanes of its scenario beside the working,
// one per policy asked about; a lesson's prediction does not (its example
// below draws them).
func TestExerciseAnswerShowsTheLanes(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		id    string
		form  url.Values
		lanes int
	}{
		{"fw-car-park-count", url.Values{"answer": {"9"}}, 1},
		{"fw-car-park-count", url.Values{"answer": {"3"}, "wrong": {"1"}}, 1},
		{"try-it-3-floor", url.Values{"choice": {"sliding-log"}}, 2},
	} {
		res, err := http.PostForm(base+"/exercises/"+tt.id, tt.form)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n := doc.Find(`[data-testid="feedback"] [data-testid="answer-lanes"] [data-testid="lane"]`).Length(); n != tt.lanes {
			t.Errorf("%s %v: %d lanes in the answer, want %d", tt.id, tt.form, n, tt.lanes)
		}
	}
}

func TestExerciseAnswerAsPlainFormPost(t *testing.T) {
	base := lessonsSite(t)
	// An answer that cannot be read is a 400, as a lesson's prediction
	// is, with the page and its message.
	for _, tt := range []struct {
		id     string
		form   url.Values
		status int
		want   string
	}{
		{"try-it-2-exact", url.Values{"answer": {"36"}}, 200, ">Right<"},
		{"try-it-2-exact", url.Values{"answer": {"36000ms"}}, 200, ">Right<"},
		{"try-it-2-exact", url.Values{"answer": {"35 s"}}, 200, "The policies say <strong data-testid=\"right-answer\">36 s</strong>: your answer is 1 s too early."},
		{"try-it-2-exact", url.Values{"answer": {"whenever"}}, 400, "can&#39;t be read"},
		{"fw-outcome", url.Values{"answer": {"maybe"}}, 400, "Answer yes or no"},
		{"try-it-3-exact", url.Values{}, 400, "Tick at least one"},
		{"try-it-3-floor", url.Values{"choice": {"sliding-log", "sliding-counter/floor"}}, 200, ">Right<"},
		{"try-it-3-exact", url.Values{"choice": {"sliding-log", "sliding-counter/exact"}}, 200, "Not quite"},
		{"leaky-queue-wait", url.Values{"answer": {"3,5 s"}}, 200, ">Right<"},
		{"leaky-queue-wait", url.Values{"answer": {"2.5 s"}}, 200, "your answer is 1 s too short"},
		{"leaky-queue-wait", url.Values{"answer": {"3500"}}, 400, "Did you mean 3500 ms"},
	} {
		res, err := http.PostForm(base+"/exercises/"+tt.id, tt.form)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.status || !strings.Contains(body.String(), tt.want) {
			t.Errorf("POST %s %v: status %d, want %d with %q in the page", tt.id, tt.form, res.StatusCode, tt.status, tt.want)
		}
	}
}

func TestExerciseAnswerThroughDatastar(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		answer string
		status int
		says   string
	}{
		{"no", 200, ">Right<"},
		// Datastar applies the events of a 400 too: the message shows.
		{"maybe", 400, "Answer yes or no"},
	} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("answer", tt.answer)
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
		if res.StatusCode != tt.status {
			t.Errorf("%q: status %d, want %d", tt.answer, res.StatusCode, tt.status)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("%q: Content-Type %q, want an event stream", tt.answer, ct)
		}
		events := webtest.ParseEvents(t, res.Body)
		found := false
		for _, ev := range events {
			html := strings.Join(ev.Data, "\n")
			found = found || ev.Name == string(web.EventMergeFragments) && strings.Contains(html, `id="feedback-slot"`) && strings.Contains(html, tt.says)
		}
		if !found {
			t.Errorf("%q: no event merges the feedback slot saying %q: %q", tt.answer, tt.says, events)
		}
	}
}

// A wrong answer leaves the form to try again and keeps the right answer
// in a closed "show the answer" box; a right one shows it at once.
func TestWrongAnswerLetsTheLearnerTryAgain(t *testing.T) {
	base := lessonsSite(t)
	post := func(id string, form url.Values) *goquery.Document {
		t.Helper()
		res, err := http.PostForm(base+"/exercises/"+id, form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("POST %s: status %d", id, res.StatusCode)
		}
		doc, err := goquery.NewDocumentFromReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := post("try-it-2-exact", url.Values{"answer": {"35 s"}})
	if got := doc.Find(`[data-testid="try-again"]`).Text(); !strings.Contains(got, "too early") {
		t.Errorf("try-again text %q, want it to say the answer is too early", got)
	}
	right := doc.Find(`[data-testid="right-answer"]`)
	if right.Length() != 1 || right.Closest(`details[data-testid="reveal"]`).Length() != 1 {
		t.Errorf("the right answer is not inside the reveal box")
	}
	if _, open := doc.Find(`details[data-testid="reveal"]`).Attr("open"); open {
		t.Errorf("the reveal box is open on the first wrong answer")
	}
	if doc.Find(`[data-testid="answer-form"] [data-testid="answer"]`).AttrOr("value", "") != "35 s" {
		t.Errorf("the form does not keep the answer to change")
	}

	doc = post("try-it-2-exact", url.Values{"answer": {"36"}})
	if r := doc.Find(`[data-testid="right-answer"]`); r.Text() != "36 s" || r.Closest("details").Length() != 0 {
		t.Errorf("a right answer: shown %q, inside a box %v", r.Text(), r.Closest("details").Length() != 0)
	}
}

// A first wrong try gives a hint worked out from the answer, with the
// answer still behind "Show the answer"; the second shows the answer open.
// The count of tries rides in the feedback, tied to the form, so the plain
// POST and Datastar's (which replaces only the feedback) both carry it.
func TestAWrongTryGivesAHintAndTheSecondTheAnswer(t *testing.T) {
	base := lessonsSite(t)
	post := func(form url.Values) *goquery.Document {
		t.Helper()
		res, err := http.PostForm(base+"/exercises/fw-first-admit", form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("POST %v: status %d", form, res.StatusCode)
		}
		doc, err := goquery.NewDocumentFromReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	// The fixed window opens again at 30 s; 60 s is one window late.
	doc := post(url.Values{"answer": {"60 s"}})
	if got := doc.Find(`[data-testid="clue"]`).Text(); !strings.Contains(got, "Hint: Off by exactly 30 s (1 window)") {
		t.Errorf("first wrong try: hint %q, want it to say the answer is a window off", got)
	}
	if _, open := doc.Find(`details[data-testid="reveal"]`).Attr("open"); open {
		t.Error("first wrong try: the answer is open before it is asked for")
	}
	tries := doc.Find(`input[name="wrong"]`)
	if tries.AttrOr("value", "") != "1" || tries.AttrOr("form", "") != doc.Find(`[data-testid="answer-form"]`).AttrOr("id", "-") {
		t.Errorf("first wrong try: the count of tries is %q, tied to form %q; want 1, tied to the answer form", tries.AttrOr("value", ""), tries.AttrOr("form", ""))
	}
	doc = post(url.Values{"answer": {"25 s"}, "wrong": {"1"}})
	if _, open := doc.Find(`details[data-testid="reveal"]`).Attr("open"); !open {
		t.Error("second wrong try: the answer is still closed")
	}
	if got := doc.Find(`[data-testid="try-again"]`).Text(); !strings.Contains(got, "Here is the answer") {
		t.Errorf("second wrong try: %q, want it to say the answer is shown", got)
	}
	if got := doc.Find(`[data-testid="clue"]`).Text(); !strings.Contains(got, "At 25 s the request is still refused") {
		t.Errorf("second wrong try: hint %q, want the working at 25 s", got)
	}
	// A forged count is read as none, not refused: the worst it does is
	// show the answer early.
	doc = post(url.Values{"answer": {"60 s"}, "wrong": {"banana"}})
	if _, open := doc.Find(`details[data-testid="reveal"]`).Attr("open"); open {
		t.Error("a count of tries that is not a number opened the answer")
	}
	doc = post(url.Values{"answer": {"30 s"}, "wrong": {"1"}})
	if doc.Find(`[data-testid="clue"]`).Length() != 0 || doc.Find(`input[name="wrong"]`).Length() != 0 {
		t.Error("a right answer still shows a hint or counts tries")
	}
}

// Which-questions label their boxes as people read the policies, and the
// time hint never uses the answer as an example.
func TestExercisePageWording(t *testing.T) {
	base := lessonsSite(t)
	res := get(t, base+"/exercises/try-it-3-exact")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	doc.Find("#answer-form label.choice").Each(func(_ int, s *goquery.Selection) { labels = append(labels, strings.TrimSpace(s.Text())) }) // the picture's rows label the same boxes
	if want := []string{"sliding log", "sliding counter (exact)", "none of them"}; strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Errorf("choice labels %q, want %q", labels, want)
	}
	res = get(t, base+"/exercises/try-it-2-exact")
	doc, err = goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	if hint := doc.Find("#answer-hint").Text(); hint == "" || strings.Contains(hint, "36") {
		t.Errorf("hint %q: want one whose examples are not the answer, 36 s", hint)
	}
}

// The playground has no stacked mode, so a stack question's feedback does
// not offer to open it there (it would run the limits side by side, each
// fed every request); other questions keep the link.
func TestStackFeedbackHasNoPlaygroundLink(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		id   string
		form url.Values
		link bool
	}{
		{"stack-count", url.Values{"answer": {"3"}}, false},
		{"try-it-2-exact", url.Values{"answer": {"36"}}, true},
	} {
		res, err := http.PostForm(base+"/exercises/"+tt.id, tt.form)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 || doc.Find(`[data-testid="feedback"]`).Length() == 0 {
			t.Fatalf("POST %s: status %d, feedback %d", tt.id, res.StatusCode, doc.Find(`[data-testid="feedback"]`).Length())
		}
		if got := doc.Find(`[data-testid="open-in-playground"]`).Length() > 0; got != tt.link {
			t.Errorf("%s: playground link = %v, want %v", tt.id, got, tt.link)
		}
	}
}

// A huge unreadable answer is not printed back whole: the page stays small.
func TestHugeAnswerIsNotEchoedWhole(t *testing.T) {
	base := lessonsSite(t)
	res, err := http.PostForm(base+"/exercises/stack-count", url.Values{"answer": {strings.Repeat("9x", 100_000)}})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || body.Len() > 100_000 {
		t.Errorf("a 200,000-character answer: status %d, page %d bytes; want 400 and a page under 100 KB", res.StatusCode, body.Len())
	}
	res, err = http.PostForm(base+"/lessons/fixed-window/predictions/fw-car-park-count", url.Values{"answer": {strings.Repeat("9x", 100_000)}})
	if err != nil {
		t.Fatal(err)
	}
	body.Reset()
	_, _ = body.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || body.Len() > 100_000 {
		t.Errorf("a 200,000-character prediction: status %d, page %d bytes; want 400 and a page under 100 KB", res.StatusCode, body.Len())
	}
}
