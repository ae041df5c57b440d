package pages

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/web/templates"
)

// LessonLink is one lesson as lists and previous/next links show it.
type LessonLink struct {
	Slug    string
	Title   string
	Summary string
	Minutes int
	Number  int
}

// URL is the lesson's address.
func (l LessonLink) URL() string { return "/lessons/" + l.Slug }

// LessonsIndex is the list of lessons.
type LessonsIndex struct {
	Page    templates.Page
	Lessons []LessonLink
}

// LessonPage is one rendered lesson.
type LessonPage struct {
	Page      templates.Page
	Lesson    LessonLink
	Body      template.HTML // computed by lessons.Render
	Prev      *LessonLink
	Next      *LessonLink
	Exercises []ExerciseLink
	// Predictions is how many predictions the lesson asks for; a page with
	// any offers to reset them.
	Predictions int
}

// ExerciseLink is one exercise in a list.
type ExerciseLink struct {
	ID    string
	Title string
}

// URL is the exercise's address.
func (e ExerciseLink) URL() string { return "/exercises/" + e.ID }

// ExerciseGroup is the exercises of one lesson.
type ExerciseGroup struct {
	Lesson    LessonLink
	Exercises []ExerciseLink
}

// ExercisesIndex lists every exercise by lesson.
type ExercisesIndex struct {
	Page   templates.Page
	Groups []ExerciseGroup
}

// ExercisePage is one exercise, with feedback once answered.
type ExercisePage struct {
	Page     templates.Page
	ID       string
	Title    string
	Question string
	Seed     uint64
	Ticks    bool // answered by ticking Choices (a which-question), not typed
	Choices  []Choice
	Answer   string // what the learner typed, echoed back
	Lesson   *LessonLink
	Another  string   // URL of a fresh variant; empty when the exercise has none
	Setting  string   // limit and window, in words
	Requests []string // the scenario's requests, as "5 s ×2"
	Original string   // URL of the exercise as written, when this is a variant
	Hint     string   // what the answer field takes, with examples that are never the answer
	Feedback *Feedback
	// Picture draws the question's traffic above the form, answered on
	// (lessons.QuestionPicture); nil when it has none to draw.
	Picture templ.Component
	// AddressProblem says what was wrong with the page's address (a seed
	// that is not a number), shown above the exercise as written.
	AddressProblem string
}

// Choice is one tick box of a which-question.
type Choice struct {
	Value   string
	Label   string
	Checked bool
}

// Feedback is the result of checking an answer.
type Feedback struct {
	Readable bool
	Problem  string
	Correct  bool
	Given    string
	Right    string
	Off      string // how far a time was off
	// Direction says which way a wrong time or count is off ("too early")
	// without giving the answer away.
	Direction string
	Explain   string
	Steps     []Step
	PlayURL   string
	// Clue is, for a wrong answer, a hint worked out from it (ask's
	// Kind.Clue): the step between "Not quite" and the answer.
	Clue string
	// Wrong counts the wrong tries at this question so far, this one
	// included; from the second, the answer is shown without being asked.
	Wrong int
	// Lanes draw the answer on an exercise's page (the scenario PlayURL
	// opens, replayed); a lesson's prediction leaves them out, since the
	// example it opens draws them.
	Lanes       []lane.Input
	LaneOptions lane.Options
}

// ShowAnswer reports whether the answer is shown open: after a second
// wrong try. Before it, it is behind "Show the answer".
func (f Feedback) ShowAnswer() bool { return f.Wrong >= 2 }

// Step is one line of the computed working.
type Step struct {
	At      string
	Policy  string
	Outcome string
	Working string
	Note    string
}

func seedText(seed uint64) string { return strconv.FormatUint(seed, 10) }

// ChoiceID is the id of a which-question's i-th tick box.
func ChoiceID(i int) string { return "choice-" + strconv.Itoa(i) }

func requestCount(reqs []string) string {
	if len(reqs) == 1 {
		return "1 moment with requests"
	}
	return strconv.Itoa(len(reqs)) + " moments with requests"
}

func joinRequests(reqs []string) string { return strings.Join(reqs, ", ") }
