package lessons

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/lessons/pages"
	"github.com/windowlab/playground/web/templates"
)

// fragmentHeader marks a prediction sent by the lesson page's script, which
// wants only the feedback to put in place; a plain form POST gets a page.
const fragmentHeader = "Windowlab-Fragment"

// predict checks a learner's prediction in a lesson: POST
// /lessons/{slug}/predictions/{id} with the form fields "answer" (and
// "choice" for a which-question). The answer is computed here, by the same
// policies and checking as the exercises, so the lesson page never holds it
// before the learner commits. An answer that cannot be read is a 400 whose
// body says what would be.
func (h *lessonPages) predict(w http.ResponseWriter, r *http.Request) {
	l := h.lib.Lesson(chi.URLParam(r, "slug"))
	if l == nil {
		http.Error(w, "No lesson at this address.", http.StatusNotFound)
		return
	}
	ps, err := h.lib.Predictions(l)
	if err != nil {
		h.s.Fail(w, r, err)
		return
	}
	var p *lessons.Prediction
	if i := slices.IndexFunc(ps, func(p *lessons.Prediction) bool { return p.ID == chi.URLParam(r, "id") }); i >= 0 {
		p = ps[i]
	}
	if p == nil {
		http.Error(w, "The lesson “"+l.Title+"” asks no prediction with this id.", http.StatusNotFound)
		return
	}
	cleanup, ok := web.FormOrRefuse(w, r, "The prediction")
	defer cleanup()
	if !ok {
		return
	}
	in := p.Exercise.Instance(0)
	fb, err := in.Check(r.PostForm.Get("answer"), r.PostForm["choice"])
	if err != nil {
		h.s.Fail(w, r, err)
		return
	}
	v := pages.PredictionResult{
		Page:     h.s.Page(r, "Your prediction", templates.SectionLessons),
		ID:       p.ID,
		Question: in.Question(),
		Lesson:   h.link(l),
		Feedback: *feedbackView(p.Exercise, in, fb),
		Open:     openAgain(ps, r.PostForm["open"], p.ID),
	}
	v.Feedback.Lanes = nil // the example the prediction opens draws them
	if fb.Readable && !fb.Correct {
		v.Feedback.Wrong = wrongTries(r.PostForm.Get("wrong")) + 1
	}
	// The result's own address takes only POST; its page links (the
	// presentation-mode toggle) reopen the lesson instead.
	v.Page.Path = "/lessons/" + l.Slug
	status := http.StatusOK
	if !fb.Readable {
		status = http.StatusBadRequest
	}
	if r.Header.Get(fragmentHeader) == "1" {
		h.s.Render(w, r, status, pages.PredictionFeedback(v))
		return
	}
	h.s.Render(w, r, status, pages.PredictionPage(v))
}

// openAgain are the examples the way back to the lesson draws open: those
// the lesson page had open (the form's "open" values naming one of the
// lesson's predictions), in the lesson's order, and then this one.
func openAgain(ps []*lessons.Prediction, sent []string, id string) []string {
	var out []string
	for _, p := range ps {
		if p.ID != id && slices.Contains(sent, p.ID) {
			out = append(out, p.ID)
		}
	}
	return append(out, id)
}

// predictionCount is how many predictions a rendered lesson asks for.
func predictionCount(r *lessons.Rendered) int { return len(r.Predictions) }
