package natsstore

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// clusterName is the one cluster name every server of the app's clusters
// uses: servers with other names do not route to each other.
const clusterName = "windowlab"

// clusterOptions makes so a member of a cluster listening on opts.Cluster
// and routing to opts.Routes.
func clusterOptions(so *server.Options, opts EmbeddedOptions) error {
	host, port, err := splitHostPort(opts.Cluster)
	if err != nil {
		return err
	}
	so.Cluster.Name, so.Cluster.Host, so.Cluster.Port = clusterName, host, anyPort(port)
	for _, r := range opts.Routes {
		u, err := parseRoute(r)
		if err != nil {
			return err
		}
		so.Routes = append(so.Routes, u)
	}
	return nil
}

// parseRoute is one route of a cluster, refused (rather than left for the
// server to drop or stumble on) unless it is nats-route://host:port.
func parseRoute(r string) (*url.URL, error) {
	r = strings.TrimSpace(r)
	u, err := url.Parse(r)
	if err == nil && u.Scheme == "nats-route" && u.Hostname() != "" && u.Path == "" {
		if _, _, err = splitHostPort(u.Host); err == nil {
			return u, nil
		}
	}
	return nil, fmt.Errorf("natsstore: cluster route %q: want nats-route://host:port", r)
}

// replicasFor is how many copies a bucket keeps on the servers nc reaches:
// three on a cluster of three or more (a majority of three survives the
// loss of any one), one on a lone server.
func replicasFor(nc *nats.Conn) int {
	if nc.ConnectedClusterName() != "" && len(nc.Servers()) >= 3 {
		return 3
	}
	return 1
}
