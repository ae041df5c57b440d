// Package room is the workshop rooms feature (/room, /join): the presenter's
// projector and controls, the attendees' phones, joining and pairing, and
// the hub that renders a room's views once for every follower
// (room_hub.go, paced by room_pace.go) and sends the same compressed bytes
// to each (web/fanout, which play streams share). Its pages and view models are in
// web/room/pages.
//
// room.go holds the Feature and its routes; each other file one concern:
// room_join.go (joining, the phone's page), room_present.go (opening a
// room, the projector, presenterOnly and the controls' reply),
// room_control.go (the presenter's controls), room_devices.go,
// room_pair.go, room_answer.go, room_explain.go, room_workshop.go (decks
// and the record). Presenter routes sit in chi Groups behind
// presenterOnly, which reads the room and checks the presenter's cookie
// once; errors become statuses and words in web.ProblemOf.
//
// Inside this package the name room is the domain package
// github.com/windowlab/playground/room; importers name this one webroom.
//
// A room drives its playground session with the playground's own actions
// (web/play's Actions), and its Feature is the playground's
// ActionObserver: an action taken on /play itself on a session a room
// shows gets an undo checkpoint too.
package room
