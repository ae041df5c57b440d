// Package outage names the one failure of a store that no visitor caused
// and none can fix: the store cannot be reached just now (its NATS server
// is down, restarting, or too slow to answer). A store wraps such an error
// with ErrUnreachable, so that the web answers it with 503, Retry-After
// and words, and a streaming page keeps retrying, rather than taking it
// for "no such room" or "the session has ended".
package outage

import (
	"errors"
	"fmt"
)

// ErrUnreachable is the store being out of reach.
var ErrUnreachable = errors.New("the store is unreachable")

// Wrap marks err as the store being out of reach, keeping err for the log.
func Wrap(err error) error { return fmt.Errorf("%w: %w", ErrUnreachable, err) }

// Is reports whether err says the store is out of reach.
func Is(err error) bool { return errors.Is(err, ErrUnreachable) }
