package room

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	weblessons "github.com/windowlab/playground/web/lessons"
	"github.com/windowlab/playground/web/room/pages"
)

// The car park with the clock at 34 s, as a reviewer found the leaks: the
// window [30 s, 60 s) is open and empty, so "how many of the next 5" is 5
// in fixed-window, which its state line ("5 left") and its window label
// ("0/5", later "4/5" counting the cars at 35 and 40 s) gave away.
const leakClockMs = 34_000

func leakBase(t *testing.T) scenario.Scenario {
	t.Helper()
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := lib.Scenario("car-park")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// beforeCut keeps the requests earlier than cut.
func beforeCut(sc scenario.Scenario, cut int64) scenario.Scenario {
	out := sc
	out.Requests = nil
	for _, r := range sc.Requests {
		if r.At < cut {
			out.Requests = append(out.Requests, r)
		}
	}
	return out
}

// withRequests is sc with more requests, kept in time order.
func withRequests(sc scenario.Scenario, more ...scenario.Request) scenario.Scenario {
	out := sc
	out.Requests = append(slices.Clone(sc.Requests), more...)
	slices.SortStableFunc(out.Requests, func(a, b scenario.Request) int { return int(a.At - b.At) })
	return out
}

// askedScreens is what a room shows with a question open: each view's
// regions from a fresh stream (the whole latest frame), and the pages.
type askedScreens struct {
	regions map[string]string // "phone room-lanes" → its HTML, room id and phone count normalised
	pages   map[string]string // "phone", "projector" → the page's HTML
	truth   []int64           // the reveal's truth, computed before revealing
	// explained are the explanations of the last request before the
	// question: "phone" a phone's own, "projector" the pointed-at one.
	explained map[string]string
}

// openQuestion starts a room over sc at the clock leakClockMs, points at
// the first request from the question's moment on, asks ask and renders
// every screen.
func openQuestion(t *testing.T, sc scenario.Scenario, ask string) askedScreens {
	t.Helper()
	pointer := int(expandedTotal(beforeCut(sc, leakClockMs)))
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	if err := sess.Load(sc); err != nil {
		t.Fatal(err)
	}
	if err := sess.Jump(leakClockMs); err != nil {
		t.Fatal(err)
	}
	if res := presenter.post(fmt.Sprintf("/room/%s/point?i=%d", id, pointer), `{}`); res.status != http.StatusOK {
		t.Fatalf("point at %d: status %d: %s", pointer, res.status, res.header.Get("X-Problem"))
	}
	if res := presenter.post("/room/"+id+"/ask", ask); res.status != http.StatusOK {
		t.Fatalf("ask %s: status %d: %s", ask, res.status, res.header.Get("X-Problem"))
	}
	rm, err := fx.rooms.ByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := rm.Question.Solve(sess.Scenario())
	if err != nil {
		t.Fatal(err)
	}
	phone := fx.device(t)
	out := askedScreens{regions: map[string]string{}, pages: map[string]string{}, explained: map[string]string{}, truth: sol.Truth}
	// How many phones follow changes as the test's own streams come and go.
	// The status line carries the count twice: in words and in data-phones.
	phones := regexp.MustCompile(`(?: · )?\d+ phones? following(?: · )?`)
	phonesAttr := regexp.MustCompile(`data-phones="\d+"`)
	for _, view := range []string{"phone", "projector"} {
		path := "/room/" + id + "/stream?view=" + view
		// Wait for the hub to render the question, then read a fresh
		// stream's first frame: every region as it stands.
		readStream(t, phone, path, false, "a question is open")
		last := `id="room-question"`
		if view == "projector" {
			last = `id="room-pointed"`
		}
		for rid, html := range regionsOf(readStream(t, phone, path, false, "a question is open", last)) {
			html = strings.ReplaceAll(html, id, "ROOM")
			html = phonesAttr.ReplaceAllString(html, `data-phones="N"`)
			out.regions[view+" "+rid] = phones.ReplaceAllString(html, " · PHONES · ")
		}
	}
	out.pages["phone"] = phone.get("/room/" + id).body
	out.pages["projector"] = presenter.get("/room/" + id + "/present").body
	expl := phone.get(fmt.Sprintf("/room/%s/explain?i=%d", id, pointer))
	if !strings.Contains(expl.body, "stays hidden") {
		t.Errorf("the phone explains request %d, later than the question: %.300s", pointer, expl.body)
	}
	// The last request before the question: its verdict is drawn on the
	// lanes, but its working and the state after it are the policy's
	// state at the question, which is the answer or one step from it.
	lastBefore := fmt.Sprintf("Request %d at", pointer)
	out.explained["phone"] = phone.get(fmt.Sprintf("/room/%s/explain?i=%d", id, pointer-1)).body
	if res := presenter.post(fmt.Sprintf("/room/%s/point?i=%d", id, pointer-1), `{}`); res.status != http.StatusOK {
		t.Fatalf("point at %d: status %d: %s", pointer-1, res.status, res.header.Get("X-Problem"))
	}
	out.explained["projector"] = regionsOf(readStream(t, phone, "/room/"+id+"/stream?view=projector", false, lastBefore, `id="room-pointed"`))["room-pointed"]
	return out
}

// workingWords are words of an explanation's working and states, each of
// which says what a policy holds.
var workingWords = []string{"Before:", "After:", "retry", " left", "count ", "estimate", "tokens", "TAT", "weight", "×", "÷", "of "}

// firstDiff is a's and b's text around where they first differ.
func firstDiff(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-150, 0)
	return a[from:min(i+150, len(a))], b[from:min(i+150, len(b))]
}

// regionsOf splits a room stream into its regions by id, the newest of each.
func regionsOf(events string) map[string]string {
	out := map[string]string{}
	idOf := regexp.MustCompile(`^<[a-z]+ id="([^"]+)"`)
	for ev := range strings.SplitSeq(events, "\n\n") {
		var html strings.Builder
		for line := range strings.SplitSeq(ev, "\n") {
			if f, ok := strings.CutPrefix(line, "data: fragments "); ok {
				html.WriteString(f + "\n")
			}
		}
		if m := idOf.FindStringSubmatch(html.String()); m != nil {
			out[m[1]] = html.String()
		}
	}
	return out
}

var (
	laneStatusRe = regexp.MustCompile(`data-testid="lane-status">([^<]*)<`)
	bandLabelRe  = regexp.MustCompile(`class="band-label"[^>]*>([^<]*)<`)
	descRe       = regexp.MustCompile(`<desc [^>]*>([^<]*)<`)
	legendRe     = regexp.MustCompile(`<span class="lane-legend">([^<]*)<`)
)

// stateTexts are the lanes' state lines and window labels, where the
// leaks were.
func stateTexts(html string) (status, bands []string) {
	for _, m := range laneStatusRe.FindAllStringSubmatch(html, -1) {
		status = append(status, m[1])
	}
	for _, m := range bandLabelRe.FindAllStringSubmatch(html, -1) {
		bands = append(bands, m[1])
	}
	return status, bands
}

// TestRoomOpenQuestionGivesNothingAway: for each kind of question, no
// screen shows what comes after the question, nor the policies' state at
// it. Three scenarios share the requests before 30 s: "base" is the car
// park; "later" differs from it only after the question (other cars at
// other times), so every region must be byte for byte the same; "earlier"
// adds four cars at 32 s, inside the window still open at the question,
// which changes the answer, so the state lines and window labels (which
// drew the state) must be the same as base's while the marks differ.
func TestRoomOpenQuestionGivesNothingAway(t *testing.T) {
	car := leakBase(t)
	// The same cars on lanes of several servers, whose status line names
	// the server the next request reaches and its answer: hidden alike.
	servers := car
	servers.Policies = []scenario.PolicySpec{
		{Name: "fixed-window", Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}},
		{Name: "sliding-log", Deployment: scenario.Deployment{Nodes: 2}},
		{Name: "token-bucket", Deployment: scenario.Deployment{Nodes: 3, Central: true}},
		{Name: "gcra", Deployment: scenario.Deployment{Nodes: 2, Route: "key"}},
	}
	for _, base := range []struct {
		name string
		sc   scenario.Scenario
	}{{"one server", car}, {"several servers", servers}} {
		t.Run(base.name, func(t *testing.T) { openQuestionGivesNothingAway(t, base.sc) })
	}
}

var countRe = regexp.MustCompile(`count \d`)

func openQuestionGivesNothingAway(t *testing.T, base scenario.Scenario) {
	pre := beforeCut(base, leakClockMs)
	later := withRequests(pre,
		scenario.Request{At: 36_000, Key: "car-park", Cost: 1, Count: 4},
		scenario.Request{At: 50_000, Key: "car-park", Cost: 2, Count: 2})
	earlier := withRequests(base, scenario.Request{At: 32_000, Key: "car-park", Cost: 1, Count: 4})
	for _, tc := range []struct {
		kind room.Kind
		ask  string
	}{
		{room.KindAdmit, `{"askKind":"admit","cost":1}`},
		{room.KindCount, `{"askKind":"count","askN":5,"cost":1}`},
		{room.KindFirstAdmit, `{"askKind":"first-admit","cost":1}`},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			b := openQuestion(t, base, tc.ask)
			l := openQuestion(t, later, tc.ask)
			e := openQuestion(t, earlier, tc.ask)
			if slices.Equal(b.truth, e.truth) {
				t.Fatalf("the earlier cars change no lane's answer (%v), so this test could not fail", b.truth)
			}
			if len(b.regions) < 8 {
				t.Fatalf("got only regions %v", slices.Sorted(func(yield func(string) bool) {
					for k := range b.regions {
						if !yield(k) {
							return
						}
					}
				}))
			}
			for rid, html := range b.regions {
				if l.regions[rid] != html {
					a, z := firstDiff(html, l.regions[rid])
					t.Errorf("%s differs between two scenarios that differ only after the question:\nbase:  …%s…\nlater: …%s…", rid, a, z)
				}
				bs, bb := stateTexts(html)
				es, eb := stateTexts(e.regions[rid])
				if !slices.Equal(bs, es) || !slices.Equal(bb, eb) {
					t.Errorf("%s: state lines or window labels depend on the cars in the open window (so on the answer):\nbase:    %q %q\nearlier: %q %q", rid, bs, bb, es, eb)
				}
				if strings.Contains(rid, "room-pointed") && strings.Contains(html, "<h2") {
					t.Errorf("%s explains the pointed-at request, later than the question: %.500s", rid, html)
				}
			}
			for _, s := range []askedScreens{b, l, e} {
				for screen, html := range s.explained {
					if !strings.Contains(html, `data-testid="explain-lane"`) || !strings.Contains(html, `class="verdict`) {
						t.Errorf("the %s's explanation of the last request before the question gives no lane's verdict, which the lanes draw: %.300s", screen, html)
					}
					for _, word := range workingWords {
						if strings.Contains(html, word) {
							t.Errorf("the %s's explanation of the last request before the question says %q while it is open: %.300s", screen, word, html)
						}
					}
				}
				screens := map[string]string{"phone page": s.pages["phone"], "projector page": s.pages["projector"],
					"phone stream": s.regions["phone room-lanes"], "projector stream": s.regions["projector room-lanes"]}
				for name, html := range screens {
					status, bands := stateTexts(html)
					if len(status) == 0 || len(bands) == 0 {
						t.Errorf("the %s shows no lane status or window label: the test reads the wrong markup", name)
					}
					for _, m := range descRe.FindAllStringSubmatch(html, -1) {
						status = append(status, m[1])
					}
					legends := legendRe.FindAllStringSubmatch(html, -1)
					if len(legends) == 0 {
						t.Errorf("the %s shows no lane legend: the test reads the wrong markup", name)
					}
					for _, m := range legends {
						// The legend says only what is drawn, and the curve,
						// bars, log ticks and TAT are not.
						for _, word := range []string{"Line", "estimate", "Bars", "Ticks", "TAT", "tokens", "weight"} {
							if strings.Contains(m[1], word) {
								t.Errorf("the %s's lane legend mentions %q, which is not drawn while a question is open: %q", name, word, m[1])
							}
						}
					}
					for _, sl := range status {
						for _, word := range []string{" left", "estimate", "tokens", "TAT", "next request", "would be"} {
							if strings.Contains(sl, word) {
								t.Errorf("the %s's lane text says %q while a question is open: %q", name, word, sl)
							}
						}
						// "count 4 of 5", not a lane description's "count what passed".
						if c := countRe.FindString(sl); c != "" {
							t.Errorf("the %s's lane text says %q while a question is open: %q", name, c, sl)
						}
					}
				}
				for rid, html := range s.regions {
					if strings.Contains(html, ` future"`) {
						t.Errorf("%s draws a request later than the clock", rid)
					}
					if strings.Contains(html, `class="tat"`) || strings.Contains(html, `class="slot"`) || strings.Contains(html, `class="prev-weight"`) || strings.Contains(html, `class="log-entry"`) {
						t.Errorf("%s draws a policy's state (TAT, slots, previous weight or log) while a question is open", rid)
					}
				}
			}
		})
	}
}

// TestRoomAnswerToAQuestionThatIsNotOpen: an answer names its question;
// the reply says what is true of it.
func TestRoomAnswerToAQuestionThatIsNotOpen(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	phone := fx.joined(t, id)
	answer := func(q int) response {
		t.Helper()
		return phone.post(fmt.Sprintf("/room/%s/answer?q=%d", id, q), signalsFor(q, lanes, "1"))
	}
	ask := func() {
		t.Helper()
		if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
			t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
		}
	}
	steps := []struct {
		before func()
		q      int
		status int
		say    string
	}{
		{nil, 1, http.StatusNotFound, "There is no question 1 in this room."},
		{ask, 99, http.StatusNotFound, "There is no question 99 in this room. Question 1 is open: answer it."},
		{nil, 0, http.StatusNotFound, "There is no question 0 in this room."},
		{ask, 1, http.StatusConflict, "Question 1 has closed; question 2 is open now: answer it."},
		{func() { presenter.post("/room/"+id+"/dismiss", `{}`) }, 2, http.StatusConflict, "Question 2 has closed, and no question is open now."},
	}
	for i, s := range steps {
		if s.before != nil {
			s.before()
		}
		res := answer(s.q)
		if res.status != s.status || !strings.Contains(res.body, s.say) {
			t.Errorf("step %d: answer to question %d: status %d, body %.300s; want %d saying %q", i+1, s.q, res.status, res.body, s.status, s.say)
		}
	}
}

// TestTallyCountsSayPhones: on the projector a bar's count sat next to the
// choice's own label ("admitted ▮ 2"), so it read as part of the choice.
func TestTallyCountsSayPhones(t *testing.T) {
	for n, want := range map[int]string{0: "0 phones", 1: "1 phone", 2: "2 phones"} {
		if got := pages.PhonesText(n); got != want {
			t.Errorf("PhonesText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAnsweredTextNeverCountsFewerPhonesThanAnswers(t *testing.T) {
	for _, tc := range []struct {
		answered, following int
		want                string
	}{
		{0, 0, "0 answered"},
		{3, 0, "3 answered"},
		{3, 2, "3 answered"},
		{3, 3, "3 answered · 3 phones following"},
		{1, 1, "1 answered · 1 phone following"},
		{0, 5, "0 answered · 5 phones following"},
	} {
		if got := pages.AnsweredText(tc.answered, tc.following); got != tc.want {
			t.Errorf("AnsweredText(%d, %d) = %q, want %q", tc.answered, tc.following, got, tc.want)
		}
	}
}
