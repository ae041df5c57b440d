package room

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/decks"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// A prepared workshop: decks (load, step, build, save), countdowns that
// reveal by themselves, nicknames, and the room's record to take home.
//
//	GET  /room/{id}/deck                  the deck with its notes and who has not answered; presenter only
//	POST /room/{id}/deck/load             load a ready deck (shipped=NAME) or a deck file (multipart file=)
//	POST /room/{id}/deck/edit             i= and do=goto|up|down|delete
//	GET  /room/{id}/deck.json             the room's deck as a file
//	POST /room/{id}/deck/next, /deck/add  the next step; add what is on screen as a step (the projector's controls;
//	                                      deck/next?view=remote from the remote, which the stream updates)
//	GET  /room/{id}/summary               per question how many were right, per phone its score
//	GET  /room/{id}/results.csv, .json    every revealed question's answers, one row per phone per question
//	POST /room/{id}/name                  a phone's own nickname (form nickname=)

// loadDecks loads the ready workshops, once, before the routes serve.
func (f *Feature) loadDecks() error {
	shipped, err := decks.Load(f.catalog, f.rooms.Bounds())
	if err != nil {
		return fmt.Errorf("web: the shipped decks: %w", err)
	}
	f.decks = shipped
	return nil
}

// workshopPages are the presenter's workshop pages and forms, behind
// presenterOnly.
func (f *Feature) workshopPages(r chi.Router) {
	r.Get("/deck", f.deckPage)
	r.Post("/deck/load", f.deckLoad)
	r.Post("/deck/edit", f.deckEdit)
	r.Get("/deck.json", f.deckFile)
	r.Get("/summary", f.summary)
	r.Get("/results.csv", f.results)
	r.Get("/results.json", f.results)
}

// workshopControls are the projector's and the remote's deck controls,
// behind presenterOnly.
func (f *Feature) workshopControls(r chi.Router) {
	r.Post("/deck/next", f.presenterAction(f.deckNext))
	r.Post("/deck/add", f.presenterAction(f.deckAdd))
}

// deckPage is the presenter's deck page.
func (f *Feature) deckPage(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	f.deckPageWith(w, r, rm, http.StatusOK, "")
}

// deckAfter shows the deck page after a refused edit, with the room as
// the edit left it.
func (f *Feature) deckAfter(w http.ResponseWriter, r *http.Request, status int, problem string) {
	if rm, ok := f.roomNow(w, r); ok {
		f.deckPageWith(w, r, rm, status, problem)
	}
}

func (f *Feature) deckPageWith(w http.ResponseWriter, r *http.Request, rm *room.Room, status int, problem string) {
	p := pages.RoomDeck{Page: f.s.Page(r, "Deck of room "+rm.Code, templates.SectionNone), Room: rm.ID,
		Deck: rm.Deck, Step: rm.Step, Error: problem, Open: rm.Question != nil && !rm.Question.Revealed}
	if p.Open {
		p.NotAnswered = rm.NotAnswered()
	}
	for _, s := range f.decks {
		p.Shipped = append(p.Shipped, pages.ShippedDeck{Name: s.Name, Title: s.Deck.Title, Steps: len(s.Deck.Steps)})
	}
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, status, pages.RoomDeckView(p))
}

// deckLoad loads a ready deck or an uploaded deck file into the room.
func (f *Feature) deckLoad(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	r.Body = http.MaxBytesReader(w, r.Body, room.MaxDeckBytes+64<<10)
	var d *room.Deck
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		d, err = f.uploadedDeck(r)
	} else {
		d, err = decks.Find(f.decks, r.PostFormValue("shipped"))
	}
	if err == nil {
		_, err = f.rooms.LoadDeck(r.Context(), rm.ID, token, d)
	}
	if err != nil {
		f.deckAfter(w, r, deckStatus(err), roomMessage(err))
		return
	}
	http.Redirect(w, r, "/room/"+rm.ID+"/deck", http.StatusSeeOther)
}

func (f *Feature) uploadedDeck(r *http.Request) (*room.Deck, error) {
	file, header, err := r.FormFile("file")
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fmt.Errorf("the file is larger than a deck may be (%d KB)", room.MaxDeckBytes>>10)
		}
		return nil, errors.New("choose a deck file (JSON) to load")
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, room.MaxDeckBytes+1))
	if err != nil {
		return nil, err
	}
	return room.ParseDeck(data, header.Filename, f.catalog, f.rooms.Bounds())
}

// deckStatus is the status of a refused deck action: a deck that does not
// read is the request's fault (400), as are the room's own refusals.
func deckStatus(err error) int {
	var de *room.DeckError
	if errors.As(err, &de) {
		return http.StatusBadRequest
	}
	return roomStatus(err)
}

// deckEdit shows, moves or deletes a step from the deck page.
func (f *Feature) deckEdit(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	i, ierr := strconv.Atoi(r.PostFormValue("i"))
	if ierr != nil {
		f.deckPageWith(w, r, rm, http.StatusBadRequest, "Want i=<step number, from 0>.")
		return
	}
	var err error
	switch r.PostFormValue("do") {
	case "goto":
		err = f.showStep(r.Context(), rm, token, i)
	case "up":
		_, err = f.rooms.MoveStep(r.Context(), rm.ID, token, i, -1)
	case "down":
		_, err = f.rooms.MoveStep(r.Context(), rm.ID, token, i, 1)
	case "delete":
		_, err = f.rooms.MoveStep(r.Context(), rm.ID, token, i, 0)
	default:
		f.deckPageWith(w, r, rm, http.StatusBadRequest, "Want do=goto, up, down or delete.")
		return
	}
	if err != nil {
		f.deckAfter(w, r, deckStatus(err), roomMessage(err))
		return
	}
	http.Redirect(w, r, "/room/"+rm.ID+"/deck", http.StatusSeeOther)
}

// deckFile downloads the room's deck, to load into another room or edit.
func (f *Feature) deckFile(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	if rm.Deck == nil {
		f.messagePage(w, r, http.StatusNotFound, "No deck to save", "This room has no deck yet: load one, or add steps from the projector's controls.")
		return
	}
	data, err := room.MarshalDeck(rm.Deck)
	if err != nil {
		f.s.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="deck-`+rm.Code+`.json"`)
	_, _ = w.Write(data)
}

// errQuestionOpen refuses a step while the room is answering: the new
// step would replace the requests the question is about.
var errQuestionOpen = fmt.Errorf("%w: reveal it or close it before the next step", errChangesQuestion)

// showStep puts step i of the room's deck on every screen: its scenario
// loaded into the session, the clock at the question's moment, and its
// question asked with its countdown. The load is undoable, as a preset's.
func (f *Feature) showStep(ctx context.Context, rm *room.Room, token string, i int) error {
	if q := rm.Question; q != nil && !q.Revealed {
		return errQuestionOpen
	}
	sess, err := f.sessions.Get(ctx, rm.Session)
	if err != nil {
		return room.ErrNotFound
	}
	_, st, err := f.rooms.GoTo(ctx, rm.ID, token, i)
	if err != nil {
		return err
	}
	shown, clock := st.Shown()
	a, asks := st.Question()
	var mark playMark
	changed, err := f.sessions.Update(ctx, sess.ID(), func(s *play.Session) error {
		mark = markPlay(s)
		if err := s.Load(shown); err != nil {
			return err
		}
		if asks {
			key := a.Key
			if key == "" {
				key = scenario.DefaultKey
			}
			if err := s.SelectClient(key); err != nil {
				return err
			}
		}
		return s.Jump(clock)
	})
	if err != nil {
		return err
	}
	if mark.changed(changed) {
		if _, err := f.rooms.Checkpoint(ctx, rm.ID, token, "step", mark.before); err != nil {
			return err
		}
	}
	if !asks {
		// A step that only shows closes the last step's question.
		if _, err := f.rooms.Dismiss(ctx, rm.ID, token); err != nil && !errors.Is(err, room.ErrNoQuestion) {
			return err
		}
		return nil
	}
	_, err = f.rooms.Ask(ctx, rm.ID, token, a, changed.Scenario())
	return err
}

// deckNext shows the step after the one on screen.
func (f *Feature) deckNext(c control) (templateReply, error) {
	if c.room.Deck == nil {
		return templateReply{}, room.ErrNoDeck
	}
	if c.room.Step+1 >= len(c.room.Deck.Steps) {
		return templateReply{}, errors.New("room: that was the deck's last step")
	}
	if err := f.showStep(c.r.Context(), c.room, c.token, c.room.Step+1); err != nil {
		return templateReply{}, err
	}
	if c.r.URL.Query().Get("view") == "remote" {
		// The remote has no deck line: its button and step follow the
		// room's remote stream, as every screen's step does.
		return templateReply{}, nil
	}
	return f.deckLine(c.r.Context(), c.room.ID)
}

// deckLine is the presenter's deck line as the room now has it.
func (f *Feature) deckLine(ctx context.Context, id string) (templateReply, error) {
	rm, err := f.rooms.ByID(ctx, id)
	if err != nil {
		return templateReply{}, err
	}
	var b strings.Builder
	if err := pages.RoomDeckLine(pages.DeckShared(pages.RoomShared{Room: rm.ID}, rm.Deck, rm.Step)).Render(ctx, &b); err != nil {
		return templateReply{}, err
	}
	return templateReply{html: b.String()}, nil
}

// deckAdd adds what is on screen as the deck's next step: the session's
// requests before the clock (or before the open question's moment) and
// the open question with its countdown.
func (f *Feature) deckAdd(c control) (templateReply, error) {
	title := strings.TrimSpace(c.sig.StepTitle)
	n := 1
	if c.room.Deck != nil {
		n = len(c.room.Deck.Steps) + 1
	}
	if title == "" {
		title = "Step " + strconv.Itoa(n)
	}
	if len(title) > 80 {
		return templateReply{}, scenario.Errors{{Field: "stepTitle", Reason: "at most 80 characters"}}
	}
	st := room.Step{Title: title, Scenario: c.sess.Scenario()}
	if q := c.room.Question; q != nil {
		st.Ask = &room.StepAsk{Kind: q.Kind, At: scenario.FormatMs(q.Request.At), Key: q.Request.Key, Cost: q.Request.Cost,
			Seconds: q.Timer.Seconds, RevealOnTime: &q.Timer.OnTime, RevealWhenAll: &q.Timer.WhenAll}
		if ask.AsksAboutN(string(q.Kind)) {
			st.Ask.N = q.Request.Count
		}
		for i, spec := range q.Lanes {
			for j, own := range st.Scenario.Specs() {
				if own == spec {
					st.Ask.Lanes = append(st.Ask.Lanes, j+1)
					break
				}
			}
			if len(st.Ask.Lanes) != i+1 {
				return templateReply{}, errors.New("room: the question asks about a lane the lanes no longer show; ask it again, then add the step")
			}
		}
	}
	if _, err := f.rooms.AddStep(c.r.Context(), c.room.ID, c.token, "Room "+c.room.Code, st); err != nil {
		return templateReply{}, err
	}
	return f.deckLine(c.r.Context(), c.room.ID)
}

// summary is the room's record on the presenter's screen.
func (f *Feature) summary(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, http.StatusOK, pages.RoomSummaryView(pages.RoomSummary{
		Page: f.s.Page(r, "Results of room "+rm.Code, templates.SectionNone), Room: rm.ID, Record: rm.Record()}))
}

// results downloads the room's record: one row per phone per revealed
// question (CSV), or the whole record (JSON).
func (f *Feature) results(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	rec := rm.Record()
	w.Header().Set("Cache-Control", "no-store")
	if strings.HasSuffix(r.URL.Path, ".json") {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", `attachment; filename="room-`+rm.Code+`.json"`)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rec)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="room-`+rm.Code+`.csv"`)
	_ = csv.NewWriter(w).WriteAll(rec.Rows())
}

// setName sets a phone's own nickname, then shows its page again.
func (f *Feature) setName(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	_, err := f.rooms.Name(r.Context(), id, cookieValue(r, attendeeCookie), r.PostFormValue("nickname"))
	if err != nil {
		rm, sess, ok := f.liveRoom(w, r)
		if !ok {
			return
		}
		p := f.phonePage(r, rm, sess, cookieValue(r, attendeeCookie))
		p.NameError = roomMessage(err)
		p.Nickname = strings.TrimSpace(r.PostFormValue("nickname"))
		f.s.Render(w, r, roomStatus(err), pages.RoomPhoneView(p))
		return
	}
	http.Redirect(w, r, "/room/"+id, http.StatusSeeOther)
}

// revealDue reveals room id's open question if its countdown ran out or
// every phone answered (room.Room.Due), with the session's scenario as it
// is now. Every replica's hub may try; the room's update lets one win.
func (f *Feature) revealDue(ctx context.Context, rm *room.Room) {
	if !rm.Due(f.rooms.Now()) {
		return
	}
	sess, err := f.sessions.Get(ctx, rm.Session)
	if err != nil {
		return
	}
	if _, _, _, err := f.rooms.RevealDue(ctx, rm.ID, sess.Scenario()); err != nil && !errors.Is(err, room.ErrNotFound) {
		f.s.Log().Warn("room: revealing a question that was due", "room", rm.ID, "error", err)
	}
}
