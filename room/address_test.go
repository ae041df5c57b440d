package room

import (
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func ipNet(cidr string) net.Addr {
	ip, n, err := net.ParseCIDR(cidr)
	if err != nil {
		panic(err)
	}
	n.IP = ip
	return n
}

// laptop is a presenter's laptop: loopback, Wi-Fi, a docker bridge, a
// link-local address and a global IPv6 one, listed as the system might.
func laptop() ([]net.Addr, error) {
	return []net.Addr{
		ipNet("127.0.0.1/8"), ipNet("::1/128"), ipNet("fe80::1c2a:3bff:fe4d:5e6f/64"),
		ipNet("2001:db8::5/64"), ipNet("192.168.1.20/24"), ipNet("169.254.3.4/16"),
		ipNet("172.17.0.1/16"), ipNet("203.0.113.7/24"), &net.IPAddr{IP: net.ParseIP("192.168.1.20")},
	}, nil
}

func loopbackOnly() ([]net.Addr, error) {
	return []net.Addr{ipNet("127.0.0.1/8"), ipNet("::1/128")}, nil
}

func mustNotList() ([]net.Addr, error) {
	return nil, errors.New("the interfaces were listed although the host was reachable")
}

func TestResolve(t *testing.T) {
	public, err := ParsePublicURL("https://workshop.example/lab/")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name         string
		public       bool
		scheme, host string
		listen       netip.Addr // invalid: not known, every address
		addrs        func() ([]net.Addr, error)
		wantURL      string
		wantCands    []string
		wantErr      string
	}{
		{name: "public URL wins over the request host", public: true, scheme: "http", host: "localhost:8080", addrs: mustNotList,
			wantURL: "https://workshop.example/lab/join/K7QXM"},
		{name: "a reachable request host is used as is", scheme: "http", host: "192.168.1.20:8080", addrs: mustNotList,
			wantURL: "http://192.168.1.20:8080/join/K7QXM"},
		{name: "a named host", scheme: "https", host: "lab.example", addrs: mustNotList,
			wantURL: "https://lab.example/join/K7QXM"},
		{name: "localhost offers the network addresses, private IPv4 first", scheme: "http", host: "localhost:8080", addrs: laptop,
			wantCands: []string{"http://192.168.1.20:8080/join/K7QXM", "http://172.17.0.1:8080/join/K7QXM",
				"http://203.0.113.7:8080/join/K7QXM", "http://[2001:db8::5]:8080/join/K7QXM"}},
		{name: "127.0.0.1", scheme: "http", host: "127.0.0.1:9000", addrs: laptop,
			wantCands: []string{"http://192.168.1.20:9000/join/K7QXM", "http://172.17.0.1:9000/join/K7QXM",
				"http://203.0.113.7:9000/join/K7QXM", "http://[2001:db8::5]:9000/join/K7QXM"}},
		{name: "::1 without a port", scheme: "http", host: "[::1]", addrs: laptop,
			wantCands: []string{"http://192.168.1.20/join/K7QXM", "http://172.17.0.1/join/K7QXM",
				"http://203.0.113.7/join/K7QXM", "http://[2001:db8::5]/join/K7QXM"}},
		{name: "a .localhost name", scheme: "http", host: "lab.localhost:8080", addrs: laptop,
			wantCands: []string{"http://192.168.1.20:8080/join/K7QXM", "http://172.17.0.1:8080/join/K7QXM",
				"http://203.0.113.7:8080/join/K7QXM", "http://[2001:db8::5]:8080/join/K7QXM"}},
		{name: "no network at all", scheme: "http", host: "localhost:8080", addrs: loopbackOnly, wantErr: "-public-url"},
		{name: "listening on every address (::)", scheme: "http", host: "localhost:8080", listen: netip.IPv6Unspecified(), addrs: laptop,
			wantCands: []string{"http://192.168.1.20:8080/join/K7QXM", "http://172.17.0.1:8080/join/K7QXM",
				"http://203.0.113.7:8080/join/K7QXM", "http://[2001:db8::5]:8080/join/K7QXM"}},
		{name: "listening on every IPv4 address (0.0.0.0) offers no IPv6 one", scheme: "http", host: "localhost:8080", listen: netip.IPv4Unspecified(), addrs: laptop,
			wantCands: []string{"http://192.168.1.20:8080/join/K7QXM", "http://172.17.0.1:8080/join/K7QXM", "http://203.0.113.7:8080/join/K7QXM"}},
		{name: "listening on one address offers that one", scheme: "http", host: "localhost:8080", listen: netip.MustParseAddr("172.17.0.1"), addrs: laptop,
			wantCands: []string{"http://172.17.0.1:8080/join/K7QXM"}},
		{name: "listening on 127.0.0.1 says phones cannot reach it, and how to fix it", scheme: "http", host: "localhost:8080", listen: netip.MustParseAddr("127.0.0.1"), addrs: mustNotList,
			wantErr: "phones cannot reach this server: it listens on 127.0.0.1 only. Start it again with -addr :8080 (every address of this machine)"},
		{name: "listening on ::1", scheme: "http", host: "[::1]:9000", listen: netip.MustParseAddr("::1"), addrs: mustNotList, wantErr: "-public-url"},
		{name: "a public URL still wins when listening on loopback (behind a proxy)", public: true, scheme: "http", host: "localhost:8080", listen: netip.MustParseAddr("127.0.0.1"), addrs: mustNotList,
			wantURL: "https://workshop.example/lab/join/K7QXM"},
		{name: "listing fails", scheme: "http", host: "localhost:8080",
			addrs: func() ([]net.Addr, error) { return nil, errors.New("boom") }, wantErr: "boom"},
		{name: "a host header that is no host", scheme: "http", host: "evil.example/path", addrs: mustNotList, wantErr: "not a host name"},
		{name: "user info in the host", scheme: "http", host: "me@lab.example", addrs: mustNotList, wantErr: "not a host name"},
		{name: "odd scheme", scheme: "ftp", host: "lab.example", addrs: mustNotList, wantErr: "not http or https"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p = public
			if !tt.public {
				p = nil
			}
			got, err := Resolve(p, tt.scheme, tt.host, "/join/K7QXM", tt.listen, tt.addrs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve(%q) error = %v, want one saying %q", tt.host, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.host, err)
			}
			if got.URL != tt.wantURL || !slices.Equal(got.Candidates, tt.wantCands) {
				t.Errorf("Resolve(%q) = %q, candidates %q; want %q, %q", tt.host, got.URL, got.Candidates, tt.wantURL, tt.wantCands)
			}
		})
	}
}

func TestResolveKeepsAtMostMaxCandidates(t *testing.T) {
	many := func() ([]net.Addr, error) {
		var out []net.Addr
		for i := range 20 {
			out = append(out, &net.IPAddr{IP: net.IPv4(10, 0, byte(i), 1)})
		}
		return out, nil
	}
	got, err := Resolve(nil, "http", "localhost:8080", "/join/AB", netip.Addr{}, many)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Candidates) != MaxCandidates || got.Candidates[0] != "http://10.0.0.1:8080/join/AB" {
		t.Errorf("20 addresses gave %d candidates starting %q; want %d starting with the first", len(got.Candidates), got.Candidates[0], MaxCandidates)
	}
}

func TestParsePublicURL(t *testing.T) {
	for _, tt := range []struct{ in, want, wantErr string }{
		{in: "http://192.168.1.20:8080", want: "http://192.168.1.20:8080"},
		{in: " https://lab.example/workshop/ ", want: "https://lab.example/workshop"},
		{in: "lab.example:8080", wantErr: "http:// or https://"},
		{in: "https://", wantErr: "no host"},
		{in: "https://me:pw@lab.example", wantErr: "user name"},
		{in: "https://lab.example/?x=1", wantErr: "query or fragment"},
		{in: "https://lab.example/#top", wantErr: "query or fragment"},
		{in: "http://[::1", wantErr: "cannot be read"},
	} {
		u, err := ParsePublicURL(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePublicURL(%q) error = %v, want one saying %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || u.String() != tt.want {
			t.Errorf("ParsePublicURL(%q) = %v, %v; want %q", tt.in, u, err, tt.want)
		}
	}
}
