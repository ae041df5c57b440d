package room

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/decks"
	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

// handClock is the rooms' clock in a test: real time, plus what the test
// adds, so a countdown runs out when the test says.
type handClock struct {
	mu    sync.Mutex
	ahead time.Duration
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.ahead)
}

func (c *handClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead += d
}

// TestBrowserRoomDeckWorkshop runs a whole workshop from the shipped
// introduction deck: the presenter loads it, three phones join with
// nicknames, each step is shown (the first with the n key) and each
// question asked with its countdown; two phones answer and one does not,
// the presenter's deck page names the one that did not, the countdown
// reveals, and at the end the downloaded CSV and JSON hold every question's
// rows, checked against the answers sent.
func TestBrowserRoomDeckWorkshop(t *testing.T) {
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	clock := &handClock{}
	sessions := play.NewStore(nil)
	rooms, err := room.New(room.NewMemStore(), room.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	rf := Rooms(rooms, sessions, lib)
	site, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), PublicURL: "http://workshop.example:8080",
		Features: []web.Feature{simulate.API(), webplay.Playground(sessions, rf), rf}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	url := browsertest.Serve(t, site)
	shipped, err := decks.Load(lib, rooms.Bounds())
	if err != nil {
		t.Fatal(err)
	}
	deck, err := decks.Find(shipped, "introduction")
	if err != nil {
		t.Fatal(err)
	}

	presenter := browsertest.NewTab(t)
	presenter.Do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/play"))
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="start-room"]`)))
	from := presenter.Location()
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
	presenter.WaitNavigated(from)
	code := presenter.Text(`[data-testid="room-code"]`)
	roomPath := strings.TrimSuffix(strings.TrimPrefix(presenter.Location(), url), "/present")

	// The deck page loads the ready introduction.
	presenter.Do(chromedp.Navigate(url + roomPath + "/deck"))
	presenter.Do(chromedp.SetValue(chromedp.CSS(`[data-testid="deck-shipped"]`), "introduction"))
	// The form posts, then the page comes back with the deck (POST,
	// redirect, GET to the same address).
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="deck-load"]`)))
	presenter.WaitText(`[data-testid="deck-steps"]`, deck.Steps[0].Title)
	presenter.Do(chromedp.Navigate(url + roomPath + "/present"))
	presenter.WaitText(`[data-testid="room-step"]`, "none shown yet")

	names := []string{"Ana", "Bo", "Cy"}
	phones := make([]*browsertest.Tab, len(names))
	for i, name := range names {
		p := browsertest.NewTab(t)
		p.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/join"))
		from := p.Location()
		p.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="join-code"]`), code),
			chromedp.SendKeys(chromedp.CSS(`[data-testid="join-name"]`), name),
			chromedp.Submit(chromedp.CSS(`[data-testid="join-code"]`)))
		p.WaitNavigated(from)
		if got := browsertest.Run(p, chromedp.Evaluate[string](`document.querySelector('[data-testid=nickname]').value`)); got != name {
			t.Fatalf("phone %d's name field reads %q, want %q", i, got, name)
		}
		phones[i] = p
	}

	// sent[question id] holds what Ana and Bo answered, per lane, in the
	// kind's words.
	type sentAnswer struct{ ana, bo []string }
	sent := map[int]sentAnswer{}
	asked := 0
	for i, st := range deck.Steps {
		if i == 0 {
			// The first step from the keyboard: n anywhere but in a field.
			presenter.Do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`), chromedp.KeyEvent("n"))
		} else {
			presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="deck-next"]`)))
		}
		presenter.WaitText(`[data-testid="room-step"]`, fmt.Sprintf("Step %d of %d: %s", i+1, len(deck.Steps), st.Title))
		a, ok := st.Question()
		if !ok {
			continue
		}
		asked++
		shown, _ := st.Shown()
		q, sol, err := room.Preview(a, shown)
		if err != nil {
			t.Fatal(err)
		}
		kind, aq := q.Ask()
		presenter.WaitText(`[data-testid="room-question"]`, fmt.Sprintf("Question %d", asked))
		presenter.WaitText(`[data-testid="countdown"]`, "left")
		var ans sentAnswer
		for pi, p := range phones[:2] {
			p.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="answer-lane"] [data-testid="tap"], [data-testid="answer-lane"] [data-testid="moment"]`)))
			var words []string
			for lane, truth := range sol.Truth {
				v := truth // Ana is right everywhere
				choices := kind.Choices(aq)
				if pi == 1 && choices != nil {
					v = choices[0] // Bo always taps the first choice
				}
				words = append(words, kind.Word(aq, v))
				if choices != nil {
					p.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="%d"]`, lane+1, v))))
				} else {
					p.Do(chromedp.SendKeys(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="moment"]`, lane+1)), kind.Word(aq, v)))
				}
			}
			if kind.Choices(aq) == nil {
				p.Do(chromedp.Click(chromedp.CSS(`[data-testid="send-answer"]`)))
			}
			p.WaitText(`[data-testid="room-mine"]`, "Sent.")
			if pi == 0 {
				ans.ana = words
			} else {
				ans.bo = words
			}
		}
		sent[asked] = ans
		presenter.WaitText(`[data-testid="room-countdown"]`, "1 not yet answered")

		// The presenter's own screen (not the projector) names who has not
		// answered: Cy.
		deckTab := presenter
		deckTab.Do(chromedp.Navigate(url + roomPath + "/deck"))
		if got := deckTab.Text(`[data-testid="not-answered"]`); got != "Cy" {
			t.Errorf("question %d: the deck page lists %q as not answered, want Cy", asked, got)
		}
		deckTab.Do(chromedp.Navigate(url + roomPath + "/present"))
		deckTab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="room-countdown"]`)))

		if asked == 1 && browsertest.FiguresWanted() {
			saveRoomScreenshot(t, phones[2], 360, 740, "", "room-phone-countdown.png")
			presenter.Do(chromedp.Navigate(url + roomPath + "/deck"))
			saveRoomScreenshot(t, presenter, 1280, 900, "", "room-deck.png")
			presenter.Do(chromedp.Navigate(url + roomPath + "/present"))
			presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="room-countdown"]`)))
			saveRoomScreenshot(t, presenter, 1280, 900, "#room-controls", "room-workshop-controls.png")
		}
		// Time is up: the countdown reveals with nobody pressing Reveal.
		clock.advance(time.Duration(a.Timer.Seconds+1) * time.Second)
		presenter.Do(chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-testid="tally"][data-revealed="%d"]`, asked))))
		for _, p := range phones {
			p.WaitText(`[data-testid="room-question"]`, "Truth")
		}
	}

	// The downloads hold every question's rows, as sent.
	csvText := browsertest.Run(presenter, chromedp.Evaluate[string](`fetch('`+roomPath+`/results.csv').then(r => r.text())`, chromedp.EvalAwaitPromise))
	rows, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
	if err != nil {
		t.Fatalf("results.csv: %v\n%s", err, csvText)
	}
	if want := 1 + 2*asked; len(rows) != want {
		t.Fatalf("results.csv has %d rows, want a header and %d answers:\n%s", len(rows), 2*asked, csvText)
	}
	for _, row := range rows[1:] {
		id, _ := strconv.Atoi(row[0])
		want := sent[id].ana
		if row[4] == "Bo" {
			want = sent[id].bo
		} else if row[4] != "Ana" {
			t.Errorf("results.csv: a row by %q, want only Ana and Bo: %v", row[4], row)
		}
		if row[5] != strings.Join(want, " | ") {
			t.Errorf("question %d, %s: the CSV says %q, the phone sent %q", id, row[4], row[5], strings.Join(want, " | "))
		}
		if row[4] == "Ana" && row[8] != "true" {
			t.Errorf("question %d: Ana answered the truth, but the CSV says correct=%s", id, row[8])
		}
	}
	jsonText := browsertest.Run(presenter, chromedp.Evaluate[string](`fetch('`+roomPath+`/results.json').then(r => r.text())`, chromedp.EvalAwaitPromise))
	var rec room.Record
	if err := json.Unmarshal([]byte(jsonText), &rec); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if len(rec.Questions) != asked || len(rec.Phones) != 2 || rec.Phones[0].Nickname != "Ana" || rec.Phones[0].Correct != asked {
		t.Errorf("results.json: %d questions, phones %+v; want %d questions with Ana first, right %d times", len(rec.Questions), rec.Phones, asked, asked)
	}

	if browsertest.FiguresWanted() {
		presenter.Do(chromedp.Navigate(url + roomPath + "/summary"))
		saveRoomScreenshot(t, presenter, 1280, 900, "", "room-summary.png")
		presenter.Do(chromedp.Navigate(url + roomPath + "/present"))
		presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="room-close"]`)))
	}
	// The room ends: every phone says so.
	presenter.Do(chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`), chromedp.Click(chromedp.CSS(`[data-testid="room-close"]`)))
	for _, p := range phones {
		p.WaitText(`[data-testid="room-status"]`, "ended")
	}
}
