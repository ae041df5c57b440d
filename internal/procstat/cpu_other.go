//go:build !unix

package procstat

import "time"

// SelfCPU is not measured without getrusage: ok is false.
func SelfCPU() (time.Duration, bool) { return 0, false }
