// Package cli is the exit convention the project's commands share: a
// failure is printed after the command's name, and one the user caused
// (bad flags or input) exits with status 2, any other with 1, so that a
// script can tell "asked wrongly" from "broke".
package cli

import (
	"errors"
	"fmt"
	"io"
)

// Usage marks an error as the user's: bad flags or input.
type Usage struct{ Err error }

func (u Usage) Error() string { return u.Err.Error() }

// Unwrap lets errors.Is and errors.As see the error inside.
func (u Usage) Unwrap() error { return u.Err }

// Usagef is a Usage error formatted as fmt.Errorf formats.
func Usagef(format string, args ...any) error {
	return Usage{fmt.Errorf(format, args...)}
}

// ExitCode is the status a command named name exits with after err: 0 for
// nil, 2 for an error wrapping a Usage, 1 for any other. It prints a
// non-nil err to stderr as "name: err".
func ExitCode(name string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	if errors.As(err, new(Usage)) {
		return 2
	}
	return 1
}
