package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddress names the client of r for per-client bounds (the sessions
// one address may hold): the remote address's IP, or, when the request
// comes from a trusted proxy (Config.TrustedProxies), the address that proxy
// says it forwarded for: the rightmost X-Forwarded-For entry that is not a
// trusted proxy itself. Entries further left are whatever the client wrote,
// so they are never believed.
func (s *Server) ClientAddress(r *http.Request) string {
	remote := remoteIP(r.RemoteAddr)
	if !s.trusted(remote) {
		return remote.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed entry: trust nothing to its left
		}
		ip = ip.Unmap()
		if !s.trusted(ip) {
			return ip.String()
		}
	}
	return remote.String()
}

func (s *Server) trusted(ip netip.Addr) bool { return trustedBy(s.trustedProxies, ip) }

func trustedBy(proxies []netip.Prefix, ip netip.Addr) bool {
	for _, p := range proxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func remoteIP(remoteAddr string) netip.Addr {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}

// ParseTrustedProxies reads a comma-separated list of proxy addresses, each
// an IP (10.0.0.1) or a prefix (10.0.0.0/8), for Config.TrustedProxies.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(item)
		if err != nil {
			return nil, &proxyError{item}
		}
		out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
	}
	return out, nil
}

type proxyError struct{ item string }

func (e *proxyError) Error() string {
	return "trusted proxy " + `"` + e.item + `"` + " is neither an IP address (10.0.0.1) nor a prefix (10.0.0.0/8)"
}
