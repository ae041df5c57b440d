// Package traffic reads real access logs into a compact trace and replays
// it through the policies, per client, to answer an engineer's question:
// which policy, at which limit, on my traffic, and whom would it refuse?
//
//	log (combined, common, JSON lines, CSV, HAR; gzip or not) ──Read──▶ chunks of Request
//	chunks ──Replay──▶ scenario.LaneReplay.Feed, one lane per policy (and per limit) ──▶ Report
//
// A log is streamed, never read whole: lines are parsed into chunks of
// fixed size, each client's key interned to a small number (Clients), and
// each chunk is decided by every lane before the next is read, the lanes
// side by side on all cores. The one replay loop (scenario's) decides
// every request; a policy keeps its clients apart by their key, as its key
// table does for any server.
//
// What a log's line becomes, which keys may be chosen, and every bound are
// in docs/traffic.md.
package traffic
