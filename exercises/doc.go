// Package exercises loads the exercise files in this folder and checks
// learners' answers against the real policies.
//
// An exercise is a JSON file an instructor can copy and edit:
//
//	{
//	  "title": "Try it 1, exact arithmetic",
//	  "lesson": "sliding-counter",
//	  "scenario": "try-it",
//	  "policy": "sliding-counter/exact",
//	  "ask": "outcome",
//	  "at": "33 s",
//	  "question": "Is a request at {at} admitted?",
//	  "vary": {"at": {"from": "31 s", "to": "59 s", "step": "1 s"}}
//	}
//
// The answer is never stored: it is computed by running the scenario each
// time an answer is checked. README.md in this folder describes every field.
//
// What flows where: an exercise names a scenario from a Catalog (the
// lessons' library) and a policy; its "ask" names a kind of question of
// package ask, which solves it (through package scenario's one replay
// loop), reads and grades the answer and words the working the page
// shows. This package holds the file format and the variants; it imports
// neither lessons nor web.
package exercises
