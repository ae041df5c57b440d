#!/usr/bin/env bash
# Runs the policies' benchmarks (./policies, and their concurrent forms in
# ./limiter) once and prints the speed tables of docs/performance.md
# computed from that run (cmd/benchreport), as Markdown on standard output.
# The raw `go test -bench` output goes to standard error as it runs and is
# kept in a file under /tmp (never in the repository), named at the end.
#
#   scripts/bench.sh                # print the tables
#   scripts/bench.sh --docs         # also replace them in docs/performance.md, between the benchreport markers
#   BENCHTIME=400ms BENCHCOUNT=3 scripts/bench.sh --docs   # longer, medians of 3 rounds
#
# The default took 1.6 minutes on a quiet 2-core machine, most of it
# filling 1e6 keys for each many-key benchmark; on a machine shared with
# other builds the wall time grows with the load (29 minutes at a load
# average of 35).
set -euo pipefail
cd "$(dirname "$0")/.."

doc=""
case "${1:-}" in
"") ;;
--docs) doc=docs/performance.md ;;
*)
	echo "usage: scripts/bench.sh [--docs]" >&2
	exit 2
	;;
esac

benchtime=${BENCHTIME:-200ms}
count=${BENCHCOUNT:-1}
out=$(mktemp /tmp/windowlab-bench.XXXXXX)

loadavg() {
	if [ -r /proc/loadavg ]; then cut -d' ' -f1 /proc/loadavg; else echo unknown; fi
}

before=$(loadavg)
start=$(date +%s)
go test -run '^$' -bench . -benchmem -benchtime "$benchtime" -count "$count" -cpu 1,2 ./policies/ ./limiter/ | tee "$out" >&2
minutes=$(awk -v s="$(($(date +%s) - start))" 'BEGIN { printf "%.1f", s / 60 }')
after=$(loadavg)

note="Run with \`scripts/bench.sh\` (\`-benchtime $benchtime -count $count -cpu 1,2\`, $(nproc) processors) in $minutes minutes; load average $before at the start and $after at the end."
if [ -n "$doc" ]; then
	go run ./cmd/benchreport -note "$note" -doc "$doc" "$out"
fi
go run ./cmd/benchreport -note "$note" "$out"
echo "raw benchmark output: $out" >&2
