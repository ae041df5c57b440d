// Package natsstore keeps the app's rooms (and, later, playground
// sessions) in NATS JetStream key-value buckets, so that they outlive a
// restart and several server processes sharing one NATS server serve the
// same room.
//
// It implements the store interfaces the domain already talks to
// (room.Store), so nothing above it knows where a room lives. What the
// in-memory stores do with a mutex this package does with revisions: an
// Update reads a key with its revision, applies the change to a copy and
// writes it back only if the key is still at that revision, and retries
// from the read when another writer got there first. A change is never
// lost and never applied twice to the stored value, whatever the number
// of replicas.
//
// Keys. A bucket key may hold only letters, digits and "-_=/.", so a
// room's id and code, which come from URLs a visitor can type, are hex
// encoded into the key: any string maps to a valid key, and two strings
// never to the same one.
//
// Time to live. The domain decides when a room has expired (room.Rooms
// sweeps with DeleteIf); the buckets also carry a maximum age, a safety
// net for a process that died before sweeping: a value not written for
// longer than that age is dropped by the server. It is set well above the
// domain's own bound, so it never cuts a live room short.
//
// Size. A NATS message is at most 1 MiB by default; a value that would
// exceed MaxValueBytes is refused with ErrTooLarge before it is written,
// so a stored value is never cut or lost. The domain's own bounds (a
// room's attendees, answers and history) keep a room far below it.
package natsstore
