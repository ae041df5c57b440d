package policies

import (
	"time"

	"github.com/windowlab/playground/internal/procstat"
)

var processStart = time.Now()

// processCPU is the CPU time the process has used, user and system; where
// getrusage is missing it falls back to wall time, and the benchmarks'
// cpu-ns/op is then wall time too.
func processCPU() time.Duration {
	if d, ok := procstat.SelfCPU(); ok {
		return d
	}
	return time.Since(processStart)
}
