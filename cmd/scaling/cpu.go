package main

import (
	"time"

	"github.com/windowlab/playground/internal/procstat"
)

// processCPU is the CPU time the process has used, user and system (0
// where it cannot be read: the CPU columns then read 0).
func processCPU() time.Duration {
	d, _ := procstat.SelfCPU()
	return d
}
