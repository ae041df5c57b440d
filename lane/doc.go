// Package lane draws one policy's lane: a timeline of the requests a
// policy decided, its own state (windows, the log, sub-buckets, the
// theoretical arrival time), the estimate curve, the limit and the clock.
//
// The components form a family: Figure (caption, timeline, status line)
// holds Timeline, which draws the axis, the policy's state, the marks and
// the clock's line. Options choose an interactive lane (marks post their
// request's index, as /play needs) or a static one with no Datastar
// attribute and no session (lessons, a projected room), its size and the
// span of time it shows.
//
// In its question mode (question.go) the drawing shows a question's
// traffic before it is answered, on the same time axis: a neutral mark a
// request, with no decision or state, for the learner to answer on
// (QuestionStrip a row, QuestionAxis under them).
//
// The input is a play.Lane, the view model a replay of a scenario gives,
// and the frame it is drawn in (Input).
package lane
