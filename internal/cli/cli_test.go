package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		want   int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"a failure", errors.New("connection refused"), 1, "tool: connection refused\n"},
		{"bad flags", Usagef("-keys %d: want 1 to %d", 0, 10), 2, "tool: -keys 0: want 1 to 10\n"},
		{"bad flags, wrapped", fmt.Errorf("serve: %w", Usage{errors.New("-addr: missing")}), 2, "tool: serve: -addr: missing\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := ExitCode("tool", tc.err, &stderr); got != tc.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.stderr)
			}
		})
	}
}

func TestUsageUnwraps(t *testing.T) {
	err := Usage{fmt.Errorf("config: %w", fs.ErrNotExist)}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false, want true", err)
	}
}
