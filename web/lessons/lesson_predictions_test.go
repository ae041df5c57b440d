package lessons

import (
	"bytes"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// postPrediction sends a prediction as the lesson page's script does (a
// fragment) or as a plain form, and returns the status and body.
func postPrediction(t *testing.T, target string, form url.Values, fragment bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if fragment {
		req.Header.Set(fragmentHeader, "1")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(res.Body)
	return res.StatusCode, body.String()
}

func TestCheckingAPrediction(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		name     string
		path     string
		form     url.Values
		status   int
		verdict  string // the words of the verdict, "" for none
		contains string
	}{
		// A first wrong try gets a hint, with the answer behind "Show the
		// answer"; the second (wrong=1, as the first one's feedback sends)
		// is told the answer.
		{"a first wrong try", "/lessons/sliding-counter/predictions/car-park-35s", url.Values{"answer": {"admitted"}}, 200, "Not quite: try again", "<strong>Hint:</strong> Work it again: at 35 s, add the previous window"},
		{"a first wrong time", "/lessons/sliding-counter/predictions/full-window-exact", url.Values{"answer": {"60.001 s"}}, 200, "Not quite: try again", "At 60.001 s the request is still refused: "},
		{"wrong outcome", "/lessons/sliding-counter/predictions/car-park-35s", url.Values{"answer": {"admitted"}, "wrong": {"1"}}, 200, "Not what the policies decide", "the policies decide <strong data-testid=\"predict-right\">refused</strong>"},
		{"right outcome", "/lessons/sliding-counter/predictions/car-park-35s", url.Values{"answer": {"refused"}}, 200, "Your prediction was right", "5 × 5/6 = 4.17 carried"},
		{"right which", "/lessons/sliding-counter/predictions/floor-vector", url.Values{"choice": {"sliding-counter/floor"}}, 200, "Your prediction was right", "sliding counter (floor)"},
		{"time off", "/lessons/sliding-counter/predictions/full-window-exact", url.Values{"answer": {"60.001 s"}, "wrong": {"1"}}, 200, "Not what the policies decide", "your answer is 5.999 s too early"},
		{"decimal comma", "/lessons/sliding-counter/predictions/full-window-exact", url.Values{"answer": {"66,0 s"}}, 200, "Your prediction was right", ""},
		{"an exercise as a prediction", "/lessons/fixed-window/predictions/fw-car-park-count", url.Values{"answer": {"9"}}, 200, "Your prediction was right", ""},
		{"a stack, answered with the first lane alone", "/lessons/where-they-disagree/predictions/stack", url.Values{"answer": {"125"}, "wrong": {"1"}}, 200, "Not what the policies decide", "lane 2: sliding-counter (floor) limit 60"},
		{"a ring's k, one too large", "/lessons/ring-of-buckets/predictions/cache-line-k", url.Values{"answer": {"k = 6"}, "wrong": {"1"}}, 200, "Not what the policies decide", "over one 64-byte line"},
		{"an exact wait, in milliseconds", "/lessons/sliding-log/predictions/sl-exact-wait", url.Values{"answer": {"30000 ms"}}, 200, "Your prediction was right", ""},
		{"unreadable", "/lessons/sliding-counter/predictions/car-park-35s", url.Values{"answer": {"perhaps"}}, 400, "Can't read that prediction", "Answer yes or no"},
		{"empty", "/lessons/where-they-disagree/predictions/attack", url.Values{}, 400, "Can't read that prediction", "Give a whole number"},
		{"which, nothing ticked", "/lessons/sliding-counter/predictions/floor-vector", url.Values{}, 400, "Can't read that prediction", "Tick at least one policy that admits the request, or “none of them”"},
		{"both none and a policy", "/lessons/sliding-counter/predictions/floor-vector", url.Values{"choice": {"none", "sliding-counter/floor"}}, 400, "Can't read that prediction", "not both"},
		{"no such prediction", "/lessons/sliding-counter/predictions/nope", url.Values{"answer": {"1"}}, 404, "", "asks no prediction with this id"},
		{"no such lesson", "/lessons/nope/predictions/car-park-35s", url.Values{"answer": {"1"}}, 404, "", "No lesson at this address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postPrediction(t, base+tt.path, tt.form, true)
			if status != tt.status {
				t.Errorf("status %d, want %d (%.200s)", status, tt.status, body)
			}
			if tt.verdict != "" {
				doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if got := doc.Find(`[data-testid="predict-verdict"]`).Text(); !strings.Contains(got, tt.verdict) {
					t.Errorf("verdict %q, want %q", got, tt.verdict)
				}
				if strings.Contains(body, "<html") {
					t.Error("the script asked for the feedback alone and got a whole page")
				}
			}
			if !strings.Contains(body, tt.contains) {
				t.Errorf("body lacks %q: %.400s", tt.contains, body)
			}
		})
	}
}

// TestPredictionWithoutJavaScript: the form works as a plain POST, giving a
// page with the feedback and a way back to the example.
func TestPredictionWithoutJavaScript(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct{ lesson, id, answer string }{
		{"sliding-counter", "car-park-35s", "no"},
		{"where-they-disagree", "stack", "60"},
		{"fixed-window", "epoch-first-admit", "1 s"},
	} {
		status, body := postPrediction(t, base+"/lessons/"+tt.lesson+"/predictions/"+tt.id, url.Values{"answer": {tt.answer}}, false)
		if status != 200 {
			t.Fatalf("%s: status %d", tt.id, status)
		}
		back := "/lessons/" + tt.lesson + "?open=" + tt.id + "#predict-" + tt.id
		for _, want := range []string{"<html", "Your prediction was right", `href="` + back + `"`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: page lacks %q", tt.id, want)
			}
		}
		// The way back leads to the lesson with this example open, and
		// no other.
		lesson := get(t, base+strings.SplitN(back, "#", 2)[0])
		open := regexp.MustCompile(`data-predict-reveal="([a-z0-9-]+)" data-testid="predict-reveal" open>`).FindAllStringSubmatch(lesson.body, -1)
		if lesson.status != 200 || len(open) != 1 || open[0][1] != tt.id {
			t.Errorf("%s: back in the lesson (status %d), examples open %v, want only %s", tt.id, lesson.status, open, tt.id)
		}
	}
}

// TestLessonPageHoldsNoPredictedAnswer: before the learner commits, the
// prediction's block holds the question but neither the answer nor the
// working; the example is in the page, closed, for readers without
// JavaScript to open.
func TestLessonPageHoldsNoPredictedAnswer(t *testing.T) {
	base := lessonsSite(t)
	res := get(t, base+"/lessons/sliding-counter")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	block := doc.Find(`[data-predict="full-window-exact"]`)
	if block.Length() != 1 {
		t.Fatalf("%d blocks for the prediction, want 1", block.Length())
	}
	if text := block.Text(); strings.Contains(text, "66") || strings.Contains(text, "working") {
		t.Errorf("the prediction's block gives its answer away before it is committed: %q", text)
	}
	reveal := doc.Find(`details[data-predict-reveal="full-window-exact"]`)
	if _, open := reveal.Attr("open"); reveal.Length() != 1 || open {
		t.Errorf("the example should follow its prediction, closed: %d found, open %v", reveal.Length(), open)
	}
	if doc.Find(`[data-testid="predict-reset"]`).Length() != 1 {
		t.Error("no control to reset the predictions")
	}
}

// TestPredictionsWithoutJavaScriptKeepEarlierExamplesOpen: predicting a
// second example without the page's script used to lead back to a lesson
// with only that example open, so the first one closed and asked again.
// The form carries the page's open examples, and the way back keeps them.
func TestPredictionsWithoutJavaScriptKeepEarlierExamplesOpen(t *testing.T) {
	base := lessonsSite(t)
	lessonURL := base + "/lessons/fixed-window"
	openOn := func(body string) []string {
		var ids []string
		for _, m := range regexp.MustCompile(`data-predict-reveal="([a-z0-9-]+)" data-testid="predict-reveal" open>`).FindAllStringSubmatch(body, -1) {
			ids = append(ids, m[1])
		}
		return ids
	}
	page := lessonURL
	for step, tt := range []struct {
		id, answer string
		wantOpen   []string
	}{
		{"fw-car-park-count", "9", []string{"fw-car-park-count"}},
		// A first wrong try leads back with its example closed, and the
		// form there counts the try: the second opens it.
		{"fw-boundary-count", "10", []string{"fw-car-park-count"}},
		{"fw-boundary-count", "10", []string{"fw-car-park-count", "fw-boundary-count"}},
	} {
		lesson := get(t, page)
		if lesson.status != http.StatusOK {
			t.Fatalf("step %d: GET %s: status %d", step+1, page, lesson.status)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(lesson.body))
		if err != nil {
			t.Fatal(err)
		}
		// Submit the form as a browser would: every field it holds.
		formSel := doc.Find(`[data-predict="` + tt.id + `"] form`)
		if formSel.Length() != 1 {
			t.Fatalf("step %d: no form for %s", step+1, tt.id)
		}
		form := url.Values{"answer": {tt.answer}}
		formSel.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
			form.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
		})
		action := formSel.AttrOr("action", "")
		status, body := postPrediction(t, base+action, form, false)
		if status != http.StatusOK {
			t.Fatalf("step %d: POST %s: status %d", step+1, action, status)
		}
		result, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		back := result.Find(`[data-testid="back-to-lesson"]`).AttrOr("href", "")
		page = base + strings.SplitN(back, "#", 2)[0]
		if got := openOn(get(t, page).body); !slices.Equal(got, tt.wantOpen) {
			t.Errorf("step %d: back in the lesson (%s), examples open %v, want %v", step+1, back, got, tt.wantOpen)
		}
	}
	// An open value naming no prediction of the lesson is not carried back.
	status, body := postPrediction(t, lessonURL+"/predictions/fw-boundary-count",
		url.Values{"answer": {"10"}, "wrong": {"1"}, "open": {"no-such-example", "fw-car-park-count"}}, false)
	if status != http.StatusOK || !strings.Contains(body, `href="/lessons/fixed-window?open=fw-car-park-count&amp;open=fw-boundary-count#predict-fw-boundary-count"`) {
		t.Errorf("status %d; the way back should keep fw-car-park-count and drop no-such-example: %.300s", status, body)
	}
}
