// Package scenario is the one shape every part of the playground agrees on:
// settings (limit, window, policies and their options) plus a list of timed
// requests. The simulate command, POST /api/simulate, the playground, shared
// links, lessons and exercises all decode, validate and run scenarios here.
//
// What flows where:
//
//	JSON, a link or Go ──Parse/Decode/DecodeURL──▶ Scenario (validated, bounded)
//	Scenario ──ReplayLane──▶ policies.Policy.Decide, request by request ──▶ Decision
//	Decisions ──Run──▶ Result (the JSON contract) ──▶ package explain (words)
//	           ──play.Session.View──▶ lanes ──▶ web pages and SSE streams
//
// ReplayLane is the only loop that turns a scenario into decisions; Run,
// WhatIf, the playground's lanes, lessons, exercises and downloads all go
// through it, and it stops when its context is done. A lane whose policy
// object runs on several servers (Deployment: "nodes", "central", …) is
// decided there by package cluster, request by request, beside a combined
// policy that takes in whatever any node admitted (the lane the pages
// draw). Its LaneReplay form
// (StartLane, then Continue) can be taken up again after requests are
// appended: the playground keeps one per lane between updates. Traffic generates
// requests in named shapes for the playground's patterns and the lessons'
// comparisons; EncodeURL and DecodeURL carry a scenario in a playground
// link; ParseMoment reads times as people type them.
//
// Wording a decision is not this package's job: see package explain.
package scenario
