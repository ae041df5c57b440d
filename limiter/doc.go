// Package limiter holds the server forms of the rate-limit policies: ways to
// run a policy of package policies where many requests arrive at once,
// rather than from one goroutine (the playground's) in order.
//
//   - Concurrent (NewConcurrent) is the form a server uses: safe for
//     concurrent use, and a decision on a key already seen writes only that
//     key's slot of a concurrent key table (slot_table.go).
//   - Sharded (NewSharded) is a mutex and an ordinary policy per shard.
//
// Why apart from policies: policies is what the lessons teach, each policy's
// decision rule, with no locks and no tables tuned for processors. The
// machinery here is a different subject (what a cache line handed between
// processors costs, how a table grows under its readers), which no lesson
// needs and the playground never runs. The two meet at one seam,
// policies.Rule: each policy's rule on one key's state (its constructor,
// policies.NewGCRARule and the like, registered from the policy's file
// here), the code its single-goroutine form runs, which many goroutines
// may run at once on
// states of their own (its one shared write is a window clock, written
// about once a window) and which the forms here run on states they keep
// themselves. So per key every form decides exactly as
// policies.New's policy does, given that key's requests in the same order,
// and the tests hold them to it (TestConcurrentAgreesPerKey, and
// TestRuleCopiesAgree state by state). Forms that keep the state outside
// the process, such as a Redis script per policy, belong here too, held to
// the same rule.
//
// Why Sharded is kept: it is the measured alternative the per-slot design
// is chosen against, and it wins where Concurrent loses. With 1e6 uniform
// keys (medians of 3 interleaved rounds of 1 s, 2-vCPU AMD EPYC VM, quiet),
// two processors gave Concurrent 1.48–1.81× the decisions a second of one
// and Sharded 0.57–0.86×; but at one processor Sharded took 3–38 % less CPU
// a decision (gcra 101 against 126 ns). On one hot key at two processors
// Sharded kept 0.61–0.81× of its one-processor rate, where Concurrent fell
// to 0.31–0.49×. The commands, the second with the same subjects:
//
//	go run ./cmd/scaling -rounds 3 -subjects fixed-window,sharded-fixed-window,sliding-counter-floor,sharded-sliding-counter-floor,sliding-counter-exact,sharded-sliding-counter-exact,token-bucket,sharded-token-bucket,gcra,sharded-gcra,sliding-buckets-k6,sharded-sliding-buckets-k6,sliding-log,sharded-sliding-log,x-time-rate-mutex-map
//	go run ./cmd/scaling -keys 1 -rounds 3 -d 500ms -subjects ...
//
// So which form a server should use depends on its processors and its keys,
// and cmd/scaling's sharded-<policy> subjects let that be measured again on
// the machine in question rather than assumed. Sharded adds no rule of its
// own: each shard is a policies.New policy.
package limiter
