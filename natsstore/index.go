package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// An index is a bucket's record of what it has admitted: the id and owner
// of every session (or room) that counts against the bounds. It is one
// key, so every admission reads it whole and writes it only at the
// revision it read (a compare-and-set), retried from the read when another
// replica wrote first: two creators on any number of replicas are
// serialised by the server, and the bounds are counted from one value,
// never from a key listing, which a concurrent writer can make
// incomplete.
//
// The index is the count; the keys are the data. A value's keys are
// written before its id enters the index, and purged before its id leaves
// it, so an id in the index whose keys are gone (a process that died
// between the two steps, or keys the bucket's maximum age dropped) is
// dead and the next admission that looks at it drops it. Keys whose id
// never entered the index (a process that died before admitting) are
// reachable by no one, since the id is handed out only once admitted, and
// the bucket's maximum age removes them.
type index struct {
	Owners map[string]string `json:"owners"` // id → its owner (a client's address, or its hash)
	rev    uint64            // the revision read; 0 when the key does not exist
}

// indexKey is the index's key; ids' keys all have a dot after their
// prefix, so no id's key can be it.
const indexKey = "index"

// readIndex reads the index with its revision (empty when absent).
func readIndex(ctx context.Context, kv jetstream.KeyValue) (*index, error) {
	ix := &index{Owners: map[string]string{}}
	e, err := kv.Get(ctx, indexKey)
	if gone(err) {
		return ix, nil
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: reading the index: %w", err)
	}
	if err := json.Unmarshal(e.Value(), ix); err != nil {
		return nil, fmt.Errorf("natsstore: decoding the index: %w", err)
	}
	if ix.Owners == nil {
		ix.Owners = map[string]string{}
	}
	ix.rev = e.Revision()
	return ix, nil
}

// writeIndex writes ix at the revision it was read at, reporting false
// when another writer changed it first.
func writeIndex(ctx context.Context, kv jetstream.KeyValue, ix *index) (bool, error) {
	b, err := json.Marshal(ix)
	if err != nil {
		return false, err
	}
	if len(b) > MaxValueBytes {
		return false, ErrTooLarge
	}
	if ix.rev == 0 {
		_, err = kv.Create(ctx, indexKey, b)
	} else {
		_, err = kv.Update(ctx, indexKey, b, ix.rev)
	}
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("natsstore: writing the index: %w", err)
	}
	return true, nil
}

// errUnchanged, returned by a changeIndex function, leaves the index as
// it is and makes changeIndex return nil.
var errUnchanged = errors.New("natsstore: the index needs no change")

// changeIndex runs fn on the index and writes what it leaves, at the
// revision read; when another writer got there first it reads again and
// runs fn again (fn must depend only on the index it is given and what it
// reads itself). Between tries it backs off (backOff).
func changeIndex(ctx context.Context, kv jetstream.KeyValue, fn func(ix *index) error) error {
	for try := range maxRetries {
		ix, err := readIndex(ctx, kv)
		if err != nil {
			return err
		}
		if err := fn(ix); err != nil {
			if errors.Is(err, errUnchanged) {
				return nil
			}
			return err
		}
		ok, err := writeIndex(ctx, kv, ix)
		if err != nil || ok {
			return err
		}
		if err := backOff(ctx, try); err != nil {
			return err
		}
	}
	return fmt.Errorf("natsstore: the index changed under %d tries in a row", maxRetries)
}

// backOff waits before the next try of a write that another replica's
// write beat (try counts from 0): a moment that grows with the tries and
// is random, so that replicas racing for one key do not keep colliding in
// step.
func backOff(ctx context.Context, try int) error {
	wait := time.Duration(rand.Int64N(int64(time.Millisecond) << min(try, 6)))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// unindex takes ids out of the index. Like forget it runs with a context
// of its own: it follows a purge of their keys, and the index must not
// keep counting them because a caller gave up.
func unindex(kv jetstream.KeyValue, ids ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = changeIndex(ctx, kv, func(ix *index) error {
		n := len(ix.Owners)
		for _, id := range ids {
			delete(ix.Owners, id)
		}
		if len(ix.Owners) == n {
			return errUnchanged
		}
		return nil
	})
}

// renewIndex rewrites the index once it is half the bucket's age old,
// so that the bucket's maximum age never drops the count of values that
// are still in use while nothing is admitted or forgotten.
func renewIndex(ctx context.Context, kv jetstream.KeyValue, maxAge time.Duration) {
	e, err := kv.Get(ctx, indexKey)
	if err != nil || time.Since(e.Created()) < maxAge/2 {
		return
	}
	_, _ = kv.Update(ctx, indexKey, e.Value(), e.Revision())
}
