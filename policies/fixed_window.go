package policies

import "unsafe"

// fixedWindowPolicy is fixed-window (registry entry 004): windows of
// windowMs aligned to the epoch (window = now - now mod windowMs), one count
// per key, reset at each window edge.
//
// A request is admitted when count + cost <= limit, so a cost of exactly the
// remaining budget passes. A cost above limit is refused with Never set and
// changes nothing. A refused request's RetryAfterMs is exact: the rest of the
// window.
//
// Late rule: a now earlier than the key's latest instant (the latest now any
// Decide saw for it) is decided at that latest instant; Decision.At and
// Decision.Late say so, and RetryAfterMs is still counted from the caller's
// now.
//
// Each key holds two integers: its latest instant (which also names its
// window) and the count. Keys are never forgotten.
type fixedWindowPolicy struct {
	p    Params
	keys keyTable[fixedWindowState]
}

type fixedWindowState struct {
	latest int64 // latest instant decided at; its window is the key's window
	count  int64 // permits admitted in that window
}

func newFixedWindow(p Params) *fixedWindowPolicy {
	return &fixedWindowPolicy{p: p, keys: newKeyTable[fixedWindowState]()}
}

// Name returns "fixed-window".
func (f *fixedWindowPolicy) Name() string { return FixedWindow }

// Params returns the parameters the policy was built with.
func (f *fixedWindowPolicy) Params() Params { return f.p }

// view is the key's window start and count at instant at >= st.latest.
func (f *fixedWindowPolicy) view(st fixedWindowState, at int64) (start, count int64) {
	start = at - at%f.p.WindowMs
	if st.latest >= start { // latest <= at, so it is in at's window
		return start, st.count
	}
	return start, 0
}

// Decide implements Policy.
func (f *fixedWindowPolicy) Decide(key Key, now, cost int64) Decision {
	now = clampTime(now)
	var st fixedWindowState
	ps := f.keys.find(key)
	if ps != nil {
		st = *ps
	}
	at, late := decideAt(now, st.latest)
	start, count := f.view(st, at)
	d := Decision{
		At: at, Late: late,
		Estimate: Whole(count),
		Capacity: f.p.Limit,
		Cost:     cost,
		Terms:    Terms{WindowStart: start, Elapsed: at - start, Count: count},
	}
	if cost < 1 || cost > f.p.Limit {
		return refusedNever(d)
	}
	if count+cost <= f.p.Limit {
		d.Allowed = true
		count += cost
	} else {
		d.RetryAfterMs = start + f.p.WindowMs - now
	}
	if ps == nil {
		ps = f.keys.insert(key)
	}
	*ps = fixedWindowState{latest: at, count: count}
	return d
}

// Peek implements Policy: the count in the window at now (or at the key's
// latest instant when now is earlier).
func (f *fixedWindowPolicy) Peek(key Key, now int64) Fraction {
	st := f.keys.get(key)
	at, _ := decideAt(clampTime(now), st.latest)
	_, count := f.view(st, at)
	return Whole(count)
}

// Snapshot implements Policy.
func (f *fixedWindowPolicy) Snapshot(key Key, now int64) State {
	st := f.keys.get(key)
	at, _ := decideAt(clampTime(now), st.latest)
	start, count := f.view(st, at)
	return State{Estimate: Whole(count), Capacity: f.p.Limit, WindowStart: start, Count: count}
}

// Stats implements Policy: two integers per key.
func (f *fixedWindowPolicy) Stats() Stats {
	return Stats{Keys: f.keys.len(), Entries: 2 * int64(f.keys.len()), BytesPerKey: int64(unsafe.Sizeof(fixedWindowState{})),
		HeapBytes: f.keys.heapBytes()}
}

func (f *fixedWindowPolicy) clone() Policy {
	return &fixedWindowPolicy{p: f.p, keys: f.keys.clone()}
}
