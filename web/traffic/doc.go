// Package traffic is the page at /traffic: a visitor uploads an access log,
// picks the key and the policies, and sees the log's lanes as density
// (admitted and refused per time slice) zooming down to single requests,
// a sortable per-client table (links, so it works without JavaScript), a
// client's own lanes as the playground draws them, and the sweep of
// refused share against the limit.
//
// An upload is parsed by package traffic as it arrives (never written to
// disk or to the store) and kept in memory for the visitor only, within
// the bounds in store.go; docs/traffic.md gives them.
package traffic
