//go:build unix

package procstat

import (
	"syscall"
	"time"
)

// SelfCPU is the user and system time this process has used; ok is false
// where it cannot be read.
func SelfCPU() (d time.Duration, ok bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
