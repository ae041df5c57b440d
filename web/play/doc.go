// Package play is the playground feature (/play): its page, its actions,
// its stream and the shared feed of a session's streams, the downloads of a
// scenario and its decisions, and who may act on a session (play_control.go).
// Its pages and view models are in web/play/pages.
//
// Inside this package the name play is the domain package
// github.com/windowlab/playground/play (sessions and their store): a
// package's own name is in no scope, so the two never meet. Importers name
// this one webplay.
//
// Rooms drive a session with the same actions (Actions, Signals), and are
// told of each action taken on /play itself through an ActionObserver,
// which cmd/playground hands to Playground.
package play
