// Package simulate is POST /api/simulate: the simulate command's scenario
// JSON in, its result JSON out, for engineers' scripts.
//
// It is a package of its own rather than part of web/play because it shares
// nothing with the playground but package scenario: no session, no page, no
// stream, no control cookie. What it shares with every feature (the
// per-client limit, the run capacity, the bounded body read) is web's.
package simulate
