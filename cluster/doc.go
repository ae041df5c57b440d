// Package cluster runs one rate-limit policy on several servers ("nodes"),
// the way real deployments do: each node counts on its own and, every
// syncMs, tells the others what it admitted (Kong's sync_rate, APISIX's
// sync_interval, Gubernator's global mode), or every decision goes to one
// shared store (central). It imports only policies; nothing here knows of
// scenarios, lanes or pages.
//
// # The model
//
// Requests come in the order given, each at a real instant; the cluster's
// clock is the latest instant seen. A request goes to one node (Route),
// which decides it on its own instance of the policy (policies.New) at its
// own instant, at + its skew. Syncs happen at the real instants k × syncMs
// (k >= 0; the one at 0 has nothing to tell), before the requests at that
// instant: a sync hands each node the
// requests the others admitted since the previous one, and the node takes
// them in with policies.Absorber, at the instants they arrived on the clock
// of the node that admitted them (so a skewed clock files them in the
// windows it saw). A request stamped later than the receiving node's own
// clock waits until that clock reaches it, as a count for a window the node
// has not reached yet would. Refused requests are never shared.
//
// Beside the nodes runs the reference: one server deciding every request at
// its real instant. Over-admission is the permits the nodes admitted minus
// those the reference admitted on the same requests; it can be negative
// (see token-bucket below).
//
// # Scenario fields
//
// The scenario's policy object maps onto Config one to one; the wiring
// should decode, check the ranges below into FieldErrors naming the field,
// and call New (whose errors name the field too):
//
//   - "nodes": integer in [1, 16]; absent means 1. With 1 node and no
//     central store the lane is the single-node policy exactly (property
//     tested), so existing scenarios are unchanged. → Config.Nodes.
//   - "route": "round-robin" (absent: the default; the i-th request of the
//     lane goes to node i mod N), "random" (each request to a node drawn
//     from a PCG generator seeded with "seed"), or "key" (a key always to
//     node mix(key) mod N: that node then sees all of the key's requests
//     and decides them as one server would, which is why sharding by key
//     needs no sync). Routing never depends on an outcome. → Config.Route.
//   - "seed": unsigned integer, read only with "random"; absent means 0.
//     Suggested: reject it with any other route, as a likely mistake.
//     → Config.Seed.
//   - "syncMs": integer in [0, MaxSyncMs]; absent or 0 never syncs (purely
//     local counting). → Config.SyncMs.
//   - "central": true makes every decision on one shared state at the real
//     instant (the store's clock, as a Lua script calling Redis TIME does):
//     exactly the single-node policy (property tested), at the price of a
//     round trip per decision. "nodes" and "route" still say which node
//     asked; "syncMs" and "skewMs" then change nothing (suggested: accept
//     them, so a lane can flip central alone, as the worked example below does).
//     → Config.Central.
//   - "skewMs": array of at most "nodes" integers in [-MaxSkewMs, MaxSkewMs],
//     node i's clock offset in ms; missing entries are 0. A node decides,
//     aligns its windows and stamps what it admitted at at + skewMs[i]
//     (clamped at 0 by the policies). → Config.SkewMs.
//
// The worked example, {"limit": 5, "windowMs": 1000, "policies": [{"name":
// "fixed-window", "nodes": 3, "syncMs": 500}], "requests": [{"at": 0,
// "count": 15}]}, is Run(Config{Policy: "fixed-window", Params: {Limit: 5,
// WindowMs: 1000}, Nodes: 3, SyncMs: 500}, fifteen Requests at 0 of cost 1):
// 15 admitted, 5 with Central (TestWorkedExample).
//
// What a lane and an explanation read from each Decision: Node (pages show
// Node+1), Policy (the node's own decision, at its own instant Local),
// Unheard, UnheardPermits and UnheardFrom ("node 2 had not yet heard of 4
// requests admitted by nodes 1 and 3": the other nodes' admissions of the
// same key in the last windowMs that it had not taken in), LastSync, Single (the
// reference's outcome) and Admitted beside SingleAdmitted (the combined
// lane against the one limit). Each node's own state is Cluster.Snapshot;
// the sync instants on the axis are the multiples of syncMs in view.
// Sweep gives the chart of over-admission against syncMs for N = 2, 4, 8.
//
// # Bounds
//
// With aligned clocks, take an admission of cost c by node i at t, and let
// U be the permits of that key the other nodes admitted since the last sync
// before t (all of them when the nodes never sync): node i knows of every
// other admission, at its own instant, and the policies absorb exactly
// (windows, log, buckets) or by an upper bound (token-bucket, gcra), so
// what node i counts is at least what one server would have counted of the
// same admissions, minus U. Each policy's admission test then gives, for
// the permits A admitted across all nodes, this one included
// (TestPropertyBounds checks each at every admission, from the outcomes
// alone):
//
//   - fixed-window: A in t's window <= limit + U in it, since the node
//     admits only if its count + c <= limit.
//   - sliding-counter: A in t's aligned window <= limit + U in it, from
//     current + c <= limit (the carried part is never negative); the
//     carried part can also be short of the truth, so no tighter bound on
//     over-admission holds.
//   - sliding-log: A in (t - windowMs, t] <= limit + U in it; absorbing
//     past the ring's size keeps the newest limit entries, which decide
//     exactly (policies.TestPropertySlidingLogAbsorbExact).
//   - sliding-buckets: A in the k buckets counted in full at t (t's and the
//     k-1 before) <= limit + U in them.
//   - token-bucket and gcra: for every earlier instant x, A in [x, t] <=
//     burst + limit × (t - x)/windowMs + U in [x, t): the bucket's deficit
//     at t is at least what arrived since x minus the refill since x.
//
// U is the others' admissions within one interval:
// at most the other nodes' admissions in [last sync, t), and never more
// than (N-1) × limit per window, since every node's own count includes its
// own admissions. Never syncing, U is everything the others admitted, and
// the plain bound is N × limit per window (N × (burst + limit × (t -
// x)/windowMs) for the buckets), checked as well. For fixed-window with
// requests of cost 1 the over-admission itself is then bounded: one server
// admits min(demand, limit) in a window, so over-admission in a window is
// at most U at its last admission.
//
// With skewed clocks no bound on the whole holds beyond this: each node
// still admits at most limit in each window of its own clock
// (TestPropertySkewedNodeKeepsItsLimit for fixed-window), but a real window
// meets two windows of a skewed node, and a node files reports from a node
// behind it into windows it has left, where they count for nothing
// (TestSkew: 300 ms apart, syncing every 10 ms, about a limit more per
// window).
//
// # Where the sweep must grow
//
// Fixed-window, cost 1, aligned clocks: if every sync of interval s2 is a
// sync of s1 (s1 divides s2, and never syncing is the coarsest), s1 admits
// no more than s2 in every window. Between two syncs each node admits
// min(its requests, limit - T) where T is what the window held at the first
// of them; cutting the interval at another sync only lowers what each node
// may still admit, and once a window is full under the finer syncs nothing
// more passes, so by induction over the coarse intervals the finer
// schedule never admits more. The reference does not change, so
// over-admission is nondecreasing along s, 2s, 4s, … and never.
//
// Never syncing, with round-robin, fixed-window, sliding-log, token-bucket
// and gcra: N = 4 splits each node's requests of N = 2 between two nodes
// (and 8 each of 4's). With costs of 1 each of these policies admits, of
// a stream, as many requests as any choice satisfying its constraint, and
// a subset of an admissible choice is admissible, so the two halves admit
// at least what the whole did: over-admission is nondecreasing along N =
// 2, 4, 8 (TestPropertySweepMonotone checks both).
//
// Elsewhere it need not grow. Token-bucket and gcra charge a late report
// in full at their latest instant, never less than the truth, so a coarser
// sync can admit fewer than a finer one, and fewer than one server
// (TestTokenBucketNotMonotone: over-admission -1); sliding-counter and
// sliding-buckets estimate, and their estimate with partial knowledge is
// not monotone either (random scenarios find both directions).
//
// # Memory
//
// A cluster holds its nodes' policies (each bounded as policies.Stats
// says), the admissions of the last window and of the current sync
// interval (for Unheard and the next sync; up to twice that between
// compactions), and in each node's inbox the reports stamped ahead of its
// clock at the last sync. All of these grow with the requests a
// caller passes; the scenario's own bound on requests is the bound here.
// Sweep makes at most MaxSweepRuns runs.
package cluster
