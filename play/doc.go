// Package play is the playground's domain: a Session holds one visitor's
// scenario (settings plus requests), a virtual clock and the client and cost
// the next request uses. Everything shown is derived by replaying the
// scenario through the policies (see Session.View), so the same actions
// always give the same timeline. A session keeps its last replay so that an
// update decides only the requests appended since and samples only what the
// clock has reached; anything else (a request inserted before the last one,
// new settings, another client or selection, a jump back) replays in full,
// and the two give the same View, field by field.
//
// What flows where: an action (fire, pattern, step, settings) changes the
// session's scenario or clock; View replays the scenario lane by lane
// through scenario.ReplayLane, which runs the policies, and turns what the
// replay hands it into lanes (marks, curve, windows, state at the clock);
// package explain words the state line, legend and the selected request's
// explanation; package web renders the View into the page and streams each
// change over SSE. Patterns are scenario.Traffic shapes.
//
// # Shared links
//
// A playground link carries the whole scenario in its query:
//
//	/play?s=<base64url, no padding, of the raw-DEFLATE-compressed scenario JSON>
//
// scenario.EncodeURL builds such a link and scenario.DecodeParam reads the
// value of s back (links belong to the scenario: lessons and exercises build
// them too). For
// links written by hand (in a lesson file, say), s may also be the scenario
// JSON itself, percent-encoded: a value starting with "{" is read as JSON.
// Either form is validated with scenario.Parse; a malformed link is an error
// naming what is wrong and never a partly loaded scenario. Adding
// "&t=<ms>" sets the clock; "&present=1" opens the presentation view.
//
// # The clock
//
// The clock starts paused at 0 and moves only through actions: play (at
// 0.25×, 1×, 4× or 16×; a playing clock is stored as the time it read at a
// wall instant and its speed, and read by computing, see Clock, so nothing
// ticks it and it runs whether or not a page is open), step, jump and
// reset. A jump may go backwards: nothing is
// truncated, and a request fired there is inserted at the clock's time, after
// any request already at that instant, so every later decision is replayed
// against it. Reset clears the requests and returns the clock to 0; the
// settings stay.
//
// # Watching and controlling
//
// A session's id lets whoever holds it watch the session; changing it also
// takes its ControlToken, which the web layer keeps in the browser that
// opened the session and never puts in a URL (see Session.Controls).
//
// # Stores
//
// The web layer holds sessions through Sessions (open one for a client,
// get one by id, touch one while a stream shows it); Store keeps them in
// memory, live. Saved is what defines a session, as JSON (at most
// MaxSavedBytes), and Restore rebuilds a session from it that shows the
// same View: the seam for a store that outlives the process or spans
// replicas. Sessions says what such a store must honour, and
// internal/storetest holds the contract tests it must pass.
//
// # Bounds
//
// A Store holds at most MaxSessions live sessions and forgets one idle for
// IdleTimeout; when it is full, it forgets the least recently used session
// that no stream watches and that has been idle for a minute, and refuses a
// new one (ErrFull) only when there is none. A session holds at most MaxRequests requests (after expanding
// counts); an action that would pass it is refused with ErrTooManyRequests
// and changes nothing.
package play
