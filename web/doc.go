// Package web serves the site: the chi router, the shared page chrome, static
// files, the Datastar bundle and the adapter for Datastar's SSE events.
//
// Handlers stay thin: they read the request, ask the domain packages, and
// render a templ component from web/templates (or stream SSE events).
// Each part of the site is a Feature that adds its own routes: Playground
// (play*.go), Lessons (lessons.go, lesson_predictions.go), Rooms (room*.go),
// and the engineers' POST /api/simulate (api_simulate.go).
//
// What flows where: a request's signals or form are decoded here, a play
// session, room or lesson (packages play, room, lessons) applies it and
// replays its scenario through package scenario's one loop; package explain
// words the decisions, package lane draws the lanes, web/templates lays
// out the page; then either a page is written, or the changed regions go out
// as Datastar SSE events (sse.go) — to one page's stream (play_stream.go),
// or rendered and compressed once for every follower of a room
// (room_hub.go, paced by room_pace.go, room_sse.go). Every expensive run
// goes through limits.go's budget and concurrency bound; client.go says
// who a client is.
package web
