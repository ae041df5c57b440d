// Package ask holds the kinds of question the site asks about a scenario:
// in exercises, in a lesson's predictions and in a workshop room.
//
// Each kind is one type in a file of its own implementing Kind: it checks
// what a question of its kind asks, solves it by running the policies
// (through package scenario's one replay: WhatIf, WhatIfN, FirstAdmitted, Run,
// StackedSteps), reads an answer as people type it, grades it against the
// truth, words answers and the question, and offers the one-tap choices.
// Lookup finds a kind by its name; the registry in kind.go is the only
// place a kind's name is compared. A new kind is one new file that calls
// register from an init function.
//
// A question (Question) is the scenario, the lanes asked about and, for a
// kind about a request at an instant, that request. Its truth (Solution)
// is kept in two forms: Truth, one value per lane, which a room tallies,
// and the single answer an exercise states (Outcome, Moment, Count or
// Admit, whichever the kind answers in).
//
// Adding a kind is one file (as wait.go added "how long does this request
// wait?"): a type implementing Kind, registered from init; InRoom as well
// if a room may ask it (its place in the presenter's menu, and a prompt
// if typed). What the forms need to know beyond that is said by small
// optional interfaces the kind implements or not (AsksAboutN, AnswersInMoments,
// AnswersInWholeNumbers, OnPlayground), never by its name.
//
// This package imports neither web nor room nor exercises: they import it.
package ask
