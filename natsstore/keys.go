package natsstore

import (
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
)

// keyOf names a bucket key for a value that came from outside (an id or a
// code in a URL). Hex keeps every key within the characters NATS accepts
// and is one-to-one, so no two ids share a key and no id can reach
// another prefix's keys.
func keyOf(prefix, s string) string { return prefix + "." + hex.EncodeToString([]byte(s)) }

// maxKeyInput bounds the strings keyOf is given: a typed id longer than
// any the app issues cannot name a stored value, and NATS subjects have
// a length limit of their own.
const maxKeyInput = 256

// named reports whether s can name a stored value: an empty string or one
// past maxKeyInput never does, so a lookup of it finds nothing.
func named(s string) bool { return s != "" && len(s) <= maxKeyInput }

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("natsstore: listen address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("natsstore: listen address %q: the port is not a number in [0, 65535]", addr)
	}
	return host, port, nil
}
