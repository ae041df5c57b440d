// Package procstat reads what the benchmarks and load tools report beside
// their own figures: the CPU time this process has used and the machine's
// load average, so that numbers from a shared machine say how shared it was.
package procstat

import (
	"os"
	"strings"
)

// LoadAverage is the 1, 5 and 15 minute load averages as Linux prints
// them ("0.52 1.10 7.83"), or "unknown" where /proc/loadavg is missing.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
