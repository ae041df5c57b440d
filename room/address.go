package room

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// MaxCandidates bounds the network addresses offered when the server was
// reached through localhost: a laptop with docker bridges and VPNs can have
// dozens, and a projected list longer than this helps nobody choose.
const MaxCandidates = 6

// ParsePublicURL checks the -public-url flag: an absolute http or https URL
// with a host (a port and a path prefix are allowed), without query,
// fragment or user info, since join links are built by appending to it.
func ParsePublicURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case !strings.Contains(raw, "://"):
		return nil, fmt.Errorf("public URL %q must start with http:// or https://", raw)
	case err != nil:
		return nil, fmt.Errorf("public URL %q cannot be read: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("public URL %q must start with http:// or https://", raw)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("public URL %q names no host", raw)
	case u.User != nil:
		return nil, fmt.Errorf("public URL %q must not carry a user name or password", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("public URL %q must not have a query or fragment: join links are added to its path", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// JoinURLs says where attendees can open a page of the server.
type JoinURLs struct {
	// URL is the address to show and to put in the QR code; empty when the
	// server was reached through a loopback host and no public URL is set.
	URL string
	// Candidates, when URL is empty, are the same page at each of the
	// machine's network addresses, most likely reachable first (private
	// IPv4 before other IPv4 before IPv6), for the presenter to pick the
	// one on the room's network.
	Candidates []string
}

// Resolve returns where attendees can open path (e.g. "/join/K7QXM").
// public is the -public-url setting (nil for none); scheme and host are the
// request's ("http", "localhost:8080"). Without a public URL the request's
// host is used, unless it is a loopback or unspecified host, which no other
// device can reach: then the machine's addresses from interfaceAddrs
// (net.InterfaceAddrs in production) become candidates on the same port,
// those the server listens on only. listen is the address the server is
// bound to (-addr): unspecified (0.0.0.0 for IPv4 only, :: for every
// address) or invalid (not known) offers every address; one address offers
// that one; a loopback one offers none, and is ErrLoopbackOnly.
func Resolve(public *url.URL, scheme, host, path string, listen netip.Addr, interfaceAddrs func() ([]net.Addr, error)) (JoinURLs, error) {
	if !strings.HasPrefix(path, "/") {
		return JoinURLs{}, fmt.Errorf("room: join path %q must start with /", path)
	}
	if public != nil {
		u := *public
		u.Path = strings.TrimSuffix(u.Path, "/") + path
		return JoinURLs{URL: u.String()}, nil
	}
	if scheme != "http" && scheme != "https" {
		return JoinURLs{}, fmt.Errorf("room: scheme %q is not http or https", scheme)
	}
	base, err := url.Parse(scheme + "://" + host)
	if err != nil || base.Host != host || base.Hostname() == "" || base.User != nil || base.Path != "" {
		return JoinURLs{}, fmt.Errorf("room: request host %q is not a host name with an optional port", host)
	}
	if !isLoopback(base.Hostname()) {
		return JoinURLs{URL: scheme + "://" + host + path}, nil
	}
	listen = listen.Unmap()
	if listen.IsLoopback() {
		return JoinURLs{}, &LoopbackOnlyError{Listen: listen, Port: base.Port()}
	}
	addrs, err := interfaceAddrs()
	if err != nil {
		return JoinURLs{}, fmt.Errorf("room: listing the machine's network addresses: %w", err)
	}
	port := base.Port()
	var out JoinURLs
	for _, ip := range reachable(addrs) {
		if !listensOn(listen, ip) {
			continue
		}
		h := ip.String()
		if port != "" {
			h = net.JoinHostPort(h, port)
		} else if ip.Is6() {
			h = "[" + h + "]"
		}
		out.Candidates = append(out.Candidates, scheme+"://"+h+path)
	}
	if len(out.Candidates) == 0 {
		return out, ErrNoAddress
	}
	return out, nil
}

// listensOn reports whether a server bound to listen answers at ip.
func listensOn(listen, ip netip.Addr) bool {
	switch {
	case !listen.IsValid() || listen == netip.IPv6Unspecified():
		return true
	case listen == netip.IPv4Unspecified():
		return ip.Is4()
	}
	return listen == ip
}

// isLoopback reports whether host can only be reached from this machine.
func isLoopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// reachable keeps the addresses another device on a network could use:
// no loopback, link-local (an IPv6 one needs a zone no phone can type),
// multicast or unspecified ones; deduplicated, ranked, at most
// MaxCandidates.
func reachable(addrs []net.Addr) []netip.Addr {
	var ips []netip.Addr
	for _, a := range addrs {
		var ip net.IP
		switch v := a.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		default:
			continue
		}
		addr, ok := netip.AddrFromSlice(ip)
		if !ok {
			continue
		}
		addr = addr.Unmap()
		if addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
			addr.IsMulticast() || addr.IsUnspecified() || slices.Contains(ips, addr) {
			continue
		}
		ips = append(ips, addr)
	}
	slices.SortStableFunc(ips, func(a, b netip.Addr) int { return cmp.Compare(rank(a), rank(b)) })
	if len(ips) > MaxCandidates {
		ips = ips[:MaxCandidates]
	}
	return ips
}

// rank orders candidates: a workshop's Wi-Fi almost always hands out a
// private IPv4 address, and IPv4 is easier to read off a projector.
func rank(ip netip.Addr) int {
	switch {
	case ip.Is4() && ip.IsPrivate():
		return 0
	case ip.Is4():
		return 1
	default:
		return 2
	}
}

// ErrNoAddress is returned by Resolve when the server was opened through a
// loopback host and the machine has no address another device could reach.
var ErrNoAddress = errors.New("room: this machine has no network address other devices could reach: join a network, or start the server with -public-url")

// LoopbackOnlyError is returned by Resolve when the server listens on a
// loopback address only (-addr 127.0.0.1:8080): no phone can reach it, at
// any of the machine's addresses.
type LoopbackOnlyError struct {
	Listen netip.Addr
	Port   string
}

func (e *LoopbackOnlyError) Error() string {
	port := cmp.Or(e.Port, "8080")
	return fmt.Sprintf("room: phones cannot reach this server: it listens on %s only. "+
		"Start it again with -addr :%s (every address of this machine), -addr <its address on the room's network>:%s, "+
		"or -public-url <the address phones reach it at>", e.Listen, port, port)
}
