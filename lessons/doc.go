// Package lessons loads the lesson files in this folder and renders them to
// HTML, computing every table and every checked number from the policies as
// it goes.
//
// A lesson is a Markdown file named NN-slug.md (NN orders the lessons) that
// starts with a short header:
//
//	---
//	title: Fixed window
//	summary: One counter per window, and the burst at its edge.
//	---
//
// The body is Markdown with live parts: fenced blocks whose info string names
// a block kind (scenario, scenario-table, lanes, playground, exercise, note,
// memory-calculator, bucket-ring, compare) and checked claims written inline
// as {{measure policy scenario … = expected}}. README.md in this folder is the
// teacher's guide to the syntax; blocks.go and claims.go implement it.
//
// What flows where: a block names a scenario (scenarios/NAME.json, one
// written inline, or generated traffic); the block is run through package
// scenario (scenario.Run, which replays the policies); package explain
// words each decision for tables; live lanes replay the scenario's first N
// requests in a play session and are drawn by package lane; every block
// is a templ component (blocks.templ, lanes.templ, widgets.templ) rendered
// into goldmark's output, which goes to the lesson page that package web
// serves (and, for one lanes block at one step, RenderLanes to its
// step endpoint). Load also loads the exercises (package
// exercises), which name this library's scenarios and lessons through
// their Catalog interface, so that an ```exercise block can show its title.
package lessons
