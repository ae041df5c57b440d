// Package web is the site's framework: the chi router and its middleware,
// the shared page chrome (layout, errors, home; web/templates), static
// files and the Datastar bundle, the adapter for Datastar's SSE events
// (sse.go), the render-once fan-out of shared streams (web/fanout),
// and the bounds every part shares: who a client is (client.go), the
// server's own rate limits on its visitors (client_limits.go), the run
// capacity and its budget (limits.go), request bodies (body.go) and open
// streams (streams.go), and the one mapping of the domain's errors to
// statuses and words that every feature answers with (problem.go).
//
// Each part of the site is a Feature in a package of its own, with its
// routes, handlers, view models and templates together (the layout of
// github.com/zangster300/northstar's features): web/play (the playground),
// web/room (workshop rooms), web/lessons (lessons, exercises, predictions)
// and web/simulate (POST /api/simulate). cmd/playground wires them into
// Config.Features. A feature imports web; web never imports a feature.
//
// Handlers stay thin: they read the request, ask the domain packages, and
// render a templ component (or stream SSE events). What flows where: a
// request's signals or form are decoded by its feature, a play session,
// room or lesson (packages play, room, lessons) applies it and replays its
// scenario through package scenario's one loop; package explain words the
// decisions, package lane draws the lanes, the feature's pages lay out the
// page inside the shared layout; then either a page is written, or the
// changed regions go out as Datastar SSE events.
package web
