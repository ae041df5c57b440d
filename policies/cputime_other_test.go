//go:build !unix

package policies

import "time"

var processStart = time.Now()

// processCPU falls back to wall time where getrusage is missing; the
// benchmarks' cpu-ns/op is then wall time too.
func processCPU() time.Duration { return time.Since(processStart) }
