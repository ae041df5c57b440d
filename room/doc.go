// Package room is the domain of workshop rooms: one presenter drives a
// playground session, a room of phones follows it, predicts, then sees.
//
// A Room is plain, serialisable state (see Store): which play session it
// shows, a short join code, the presenter's capability (kept only as a
// hash), remote-device pairing, the open question with one answer per
// attendee, the pointed-at request and a bounded undo history. A question's
// kind (admit, count, first-admit) is one of package ask's, which solves,
// checks and words it with the same code the exercises use.
//
// The package imports nothing from the web; time is a parameter (every
// method that depends on it takes now), so tests use fixed instants. The
// address helpers (Resolve, ParsePublicURL) say where attendees' devices
// can reach the server.
package room
