package traffic

import (
	"fmt"
	"strconv"
	"strings"
)

// KeyPart is one part of the key a log's requests are counted under.
type KeyPart struct {
	Kind     string // one of the Part* kinds
	Name     string // PartField's field, PartHeader's header
	Segments int    // PartPath: the path's first this many segments; 0 the whole path
}

// The kinds of key part. Which a format offers is its Offers list.
const (
	PartClient  = "client"  // the client address (a JSON log's key field, a CSV's key column)
	PartUser    = "user"    // the authenticated user (a log's %u)
	PartPath    = "path"    // the request's path, query left out; path:N its first N segments
	PartHost    = "host"    // the request URL's host (HAR)
	PartAgent   = "agent"   // the User-Agent (combined, HAR)
	PartReferer = "referer" // the Referer (combined, HAR)
	PartField   = "field"   // field:NAME, a JSON line's field (a.b for nested)
	PartHeader  = "header"  // header:NAME, a HAR request's header
)

// Key is a choice of key: parts joined by "+", the key of a request their
// values joined by a space ("client+path:1" counts each address on each
// top-level path apart).
type Key []KeyPart

// DefaultKey counts requests per client address.
var DefaultKey = Key{{Kind: PartClient}}

// ParseKey reads a key choice: client, user, path, path:N, host, agent,
// referer, field:NAME, header:NAME, or several joined by "+".
func ParseKey(s string) (Key, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultKey, nil
	}
	var k Key
	for _, part := range strings.Split(s, "+") {
		kind, arg, hasArg := strings.Cut(strings.TrimSpace(part), ":")
		p := KeyPart{Kind: kind}
		switch kind {
		case PartClient, PartUser, PartHost, PartAgent, PartReferer:
			if hasArg {
				return nil, fmt.Errorf("key %q: %s takes nothing after a colon", s, kind)
			}
		case PartPath:
			if hasArg {
				n, err := strconv.Atoi(arg)
				if err != nil || n < 1 || n > 32 {
					return nil, fmt.Errorf("key %q: path:N takes a number of segments from 1 to 32", s)
				}
				p.Segments = n
			}
		case PartField, PartHeader:
			if !hasArg || arg == "" {
				return nil, fmt.Errorf("key %q: %s needs a name (%s:NAME)", s, kind, kind)
			}
			p.Name = arg
		default:
			return nil, fmt.Errorf("key %q: unknown part %q (want client, user, path, path:N, host, agent, referer, field:NAME or header:NAME, joined by +)", s, kind)
		}
		k = append(k, p)
	}
	return k, nil
}

// String writes the key choice back as ParseKey reads it.
func (k Key) String() string {
	parts := make([]string, len(k))
	for i, p := range k {
		switch {
		case p.Name != "":
			parts[i] = p.Kind + ":" + p.Name
		case p.Segments > 0:
			parts[i] = fmt.Sprintf("%s:%d", p.Kind, p.Segments)
		default:
			parts[i] = p.Kind
		}
	}
	return strings.Join(parts, "+")
}

// segments cuts a path to its query-less first n segments (all when n is
// 0): "/api/v1/users?id=3" is "/api/v1" for n 2.
func segments(path []byte, n int) []byte {
	for i, c := range path {
		if c == '?' || c == '#' {
			path = path[:i]
			break
		}
	}
	if n == 0 {
		return path
	}
	seen := 0
	for i, c := range path {
		if c == '/' && i > 0 {
			seen++
			if seen == n {
				return path[:i]
			}
		}
	}
	return path
}
