package lessons

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/lessons/pages"
	"github.com/windowlab/playground/web/templates"
)

// Lessons serves /lessons and /exercises: the lessons rendered with every
// number computed from the policies, and exercises whose answers are
// computed when checked.
func Lessons(lib *lessons.Library, set *exercises.Set) web.Feature {
	return web.FeatureFunc(func(s *web.Server, r chi.Router) error {
		if lib == nil || set == nil {
			return errors.New("web: Lessons expects a lesson library and an exercise set")
		}
		h := &lessonPages{s: s, lib: lib, set: set}
		r.Get("/lessons", h.index)
		r.Get("/lessons/{slug}", h.lesson)
		r.Post("/lessons/{slug}/predictions/{id}", h.predict)
		r.Get("/lessons/{slug}/lanes/{id}/{step}", h.lanes)
		r.Get("/exercises", h.exercises)
		r.Get("/exercises/{id}", h.exercise)
		r.Post("/exercises/{id}", h.exercise)
		return nil
	})
}

// LoadLessons loads the embedded lessons and exercises for Lessons.
func LoadLessons() (*lessons.Library, *exercises.Set, error) {
	lib, err := lessons.Load()
	if err != nil {
		return nil, nil, err
	}
	return lib, lib.Exercises, nil
}

type lessonPages struct {
	s   *web.Server
	lib *lessons.Library
	set *exercises.Set
}

func (h *lessonPages) link(l *lessons.Lesson) pages.LessonLink {
	n := slices.Index(h.lib.Lessons, l) + 1
	return pages.LessonLink{Slug: l.Slug, Title: l.Title, Summary: l.Summary, Minutes: l.ReadingMinutes(), Number: n}
}

func (h *lessonPages) index(w http.ResponseWriter, r *http.Request) {
	v := pages.LessonsIndex{Page: h.s.Page(r, "Lessons", templates.SectionLessons)}
	for _, l := range h.lib.Lessons {
		v.Lessons = append(v.Lessons, h.link(l))
	}
	h.s.Render(w, r, http.StatusOK, pages.LessonsList(v))
}

func (h *lessonPages) exercisesOf(slug string) []pages.ExerciseLink {
	var out []pages.ExerciseLink
	for _, e := range h.set.Exercises {
		if e.Lesson == slug {
			out = append(out, pages.ExerciseLink{ID: e.ID, Title: e.Title})
		}
	}
	return out
}

func (h *lessonPages) lesson(w http.ResponseWriter, r *http.Request) {
	l := h.lib.Lesson(chi.URLParam(r, "slug"))
	if l == nil {
		h.s.NotFound(w, r)
		return
	}
	rendered, err := h.lib.Render(l, r.URL.Query())
	if err != nil {
		h.s.Fail(w, r, err)
		return
	}
	for _, p := range rendered.Problems {
		// The page still shows computed values; the tests fail on this.
		h.s.Log().Warn("lesson problem", "lesson", p.Lesson, "problem", p.What)
	}
	v := pages.LessonPage{
		Page:      h.s.Page(r, l.Title, templates.SectionLessons),
		Lesson:    h.link(l),
		Body:      rendered.HTML,
		Exercises: h.exercisesOf(l.Slug),

		Predictions: predictionCount(rendered),
	}
	status := http.StatusOK
	if len(rendered.InputProblems) > 0 {
		// The page still helps, with the lesson's own values and the
		// problem shown beside its widget; the status says the address was
		// not taken as given.
		status = http.StatusBadRequest
	}
	prev, next := h.lib.Neighbours(l.Slug)
	if prev != nil {
		p := h.link(prev)
		v.Prev = &p
	}
	if next != nil {
		n := h.link(next)
		v.Next = &n
	}
	h.s.Render(w, r, status, pages.LessonView(v))
}

// lanes answers a lesson's step control: the lanes block at that step, as
// one fragment that replaces the block in place.
func (h *lessonPages) lanes(w http.ResponseWriter, r *http.Request) {
	l := h.lib.Lesson(chi.URLParam(r, "slug"))
	if l == nil {
		h.s.NotFound(w, r)
		return
	}
	raw := chi.URLParam(r, "step")
	step, err := strconv.Atoi(raw)
	if err != nil || step < 0 {
		http.Error(w, fmt.Sprintf("step: %q is not a step (a whole number from 0)", raw), http.StatusBadRequest)
		return
	}
	// Datastar sends its signals as ?datastar=; they are no part of the
	// page's address, which the block's links and step form rebuild.
	query := r.URL.Query()
	query.Del("datastar")
	html, err := h.lib.RenderLanes(l, chi.URLParam(r, "id"), step, query)
	var stepErr lessons.StepError
	var inputErr lessons.InputError
	switch {
	case errors.Is(err, lessons.ErrNoSuchLanes):
		h.s.NotFound(w, r)
		return
	case errors.As(err, &stepErr), errors.As(err, &inputErr):
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		h.s.Fail(w, r, err)
		return
	}
	sse, done := h.s.NewSSE(w, r)
	defer done()
	if err := web.MergeFragments(sse, string(html)); err != nil {
		h.s.Log().Warn("sending lesson lanes", slog.Any("error", err))
	}
}

func (h *lessonPages) exercises(w http.ResponseWriter, r *http.Request) {
	v := pages.ExercisesIndex{Page: h.s.Page(r, "Exercises", templates.SectionExercises)}
	for _, l := range h.lib.Lessons {
		if ex := h.exercisesOf(l.Slug); len(ex) > 0 {
			v.Groups = append(v.Groups, pages.ExerciseGroup{Lesson: h.link(l), Exercises: ex})
		}
	}
	h.s.Render(w, r, http.StatusOK, pages.ExercisesList(v))
}

// nextSeed derives the seed of "Another one" from the current one, so a
// sequence of variants is the same for everyone who follows it.
func nextSeed(seed uint64) uint64 {
	return (seed*2654435761+97)%999_983 + 1
}

func (h *lessonPages) exercise(w http.ResponseWriter, r *http.Request) {
	e := h.set.Get(chi.URLParam(r, "id"))
	if e == nil {
		h.s.NotFound(w, r)
		return
	}
	// Datastar sends the form as multipart FormData; a plain POST as
	// application/x-www-form-urlencoded.
	cleanup, ok := web.FormOrRefuse(w, r, "The answer")
	defer cleanup()
	if !ok {
		return
	}
	status := http.StatusOK
	var seed uint64
	var addressProblem string
	if raw := r.Form.Get("seed"); raw != "" {
		var err error
		if seed, err = strconv.ParseUint(raw, 10, 64); err != nil {
			seed, status = 0, http.StatusBadRequest
			// Named "variant", as the page labels it, not by the address's seed.
			addressProblem = fmt.Sprintf("Variant “%s” in the address is not a whole number from 0 to %d, so here is the exercise as written.", raw, uint64(math.MaxUint64))
		}
	}
	in := e.Instance(seed)
	sol, err := in.Solve()
	if err != nil {
		h.s.Fail(w, r, err)
		return
	}
	v := pages.ExercisePage{
		Page:     h.s.Page(r, e.Title, templates.SectionExercises),
		ID:       e.ID,
		Title:    e.Title,
		Question: in.Question(),
		Seed:     seed,
		Ticks:    ask.Ticks(e.Ask),
		Setting:  fmt.Sprintf("limit %d per %s", in.Scenario.Limit, scenario.FormatMs(in.Scenario.WindowMs)),
		Hint:     answerHint(in, sol),

		AddressProblem: addressProblem,
	}
	if e.Vary != nil {
		v.Another = fmt.Sprintf("/exercises/%s?seed=%d", e.ID, nextSeed(seed))
	}
	v.Requests = in.RequestTexts() // as the question's {requests} tells them
	if seed != 0 {
		v.Original = "/exercises/" + e.ID
	}
	if l := h.lib.Lesson(e.Lesson); l != nil {
		link := h.link(l)
		v.Lesson = &link
	}
	choices := r.PostForm["choice"]
	for _, lane := range e.Lanes() {
		v.Choices = append(v.Choices, pages.Choice{Value: lane, Label: exercises.Label(lane), Checked: slices.Contains(choices, lane)})
	}
	if ask.Ticks(e.Ask) {
		v.Choices = append(v.Choices, pages.Choice{Value: "none", Label: "none of them", Checked: slices.Contains(choices, "none")})
	}
	ids := map[string]string{}
	for i, c := range v.Choices {
		ids[c.Value] = pages.ChoiceID(i)
	}
	if pic := lessons.QuestionPicture(e.ID, in, "answer-form", ids); pic != nil {
		v.Picture = pic
	}
	if r.Method == http.MethodPost {
		answer := r.PostForm.Get("answer")
		v.Answer = web.Truncate(answer, 200) // the field shows it back; no answer is longer
		fb, err := in.Check(answer, choices)
		if err != nil {
			h.s.Fail(w, r, err)
			return
		}
		v.Feedback = feedbackView(e, in, fb)
		if fb.Readable && !fb.Correct {
			v.Feedback.Wrong = wrongTries(r.PostForm.Get("wrong")) + 1
		}
		if !fb.Readable {
			// As a lesson's prediction does: the page (or its feedback)
			// says what would be read, and the status says this was not.
			status = http.StatusBadRequest
		}
		if r.Header.Get("Datastar-Request") == "true" {
			var sse *datastar.ServerSentEventGenerator
			if status == http.StatusOK {
				var done func()
				sse, done = h.s.NewSSE(w, r)
				defer done()
			} else {
				// Datastar applies the events of a 400 too; this small
				// reply goes out uncompressed, as the rooms' refusals do.
				sse = web.SSEReply(w, r, status, fb.Problem)
			}
			if err := web.MergeComponent(sse, pages.FeedbackSlot(v)); err != nil {
				h.s.Log().Warn("sending exercise feedback", slog.Any("error", err))
			}
			return
		}
	}
	h.s.Render(w, r, status, pages.ExerciseView(v))
}

// maxWrong bounds the wrong tries a form may claim: past the second, the
// count changes nothing.
const maxWrong = 9

// wrongTries reads the form's count of wrong tries before this one; a
// value the page never sent counts as none, so the worst a forged one does
// is show the answer a try early.
func wrongTries(raw string) int {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0
	}
	return min(n, maxWrong)
}

// answerHint says what kind of answer the field takes; a time's examples
// are worked out from the answer so that none of them is it.
func answerHint(in exercises.Instance, sol exercises.Solution) string {
	return in.Hint(sol, ask.ExercisePage)
}

func feedbackView(e *exercises.Exercise, in exercises.Instance, fb exercises.Feedback) *pages.Feedback {
	out := &pages.Feedback{
		Readable: fb.Readable, Problem: fb.Problem, Correct: fb.Correct,
		Given: fb.Given, Right: fb.Right, Off: fb.Difference, Direction: fb.Direction, Explain: e.Explain, Clue: fb.Clue,
	}
	for _, st := range fb.Solution.Trace {
		out.Steps = append(out.Steps, pages.Step{At: st.When(), Policy: st.Policy, Outcome: st.Outcome, Working: st.Working, Note: st.Note})
	}
	// The playground opens the same scenario, with the policies asked about
	// and the request the question is about. It has no stacked mode: it
	// would run a stack's limits side by side, each fed every request, the
	// very thing the question is not about, so a stack gets no link.
	if !ask.OnPlayground(e.Ask) {
		return out
	}
	s := in.Scenario
	s.Policies = nil
	for _, lane := range e.Lanes() {
		if spec, err := in.Scenario.Lane(lane); err == nil { // "#N" keeps the lane's servers
			s.Policies = append(s.Policies, spec)
		}
	}
	if !e.WholeScenario() {
		at := in.At
		if ask.AnswersInMoments(e.Ask) {
			at = fb.Solution.Moment
		}
		s.Requests = append(slices.Clone(s.Requests), scenario.Request{At: at, Cost: 1, Count: 1})
		slices.SortStableFunc(s.Requests, func(a, b scenario.Request) int { return cmp.Compare(a.At, b.At) })
	}
	out.PlayURL = scenario.EncodeURL(s)
	out.Lanes, out.LaneOptions = answerLanes(s)
	return out
}

// answerLanes replays the answer's scenario as the playground would, the
// clock at its last request, for the lanes under an exercise's answer. A
// scenario that cannot be replayed (none reaches here: the exercise was
// solved from it) draws no lanes rather than failing the page.
func answerLanes(s scenario.Scenario) ([]lane.Input, lane.Options) {
	if len(s.Requests) == 0 {
		return nil, lane.Options{}
	}
	ins, err := lane.Replayed("answer-lane", s, s.Requests[len(s.Requests)-1].At)
	if err != nil {
		return nil, lane.Options{}
	}
	// On a phone the lane draws 360 units wide (lane Options.NarrowWidth),
	// as a room's phones do: scaled to the card, a unit is some 0.85 px,
	// and the plot some 90 px high.
	return ins, lane.Options{Width: 560, NarrowWidth: lane.PhoneWidth}
}
