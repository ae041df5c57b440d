#!/usr/bin/env bash
# Runs every test, installing first what the tests need on a fresh machine:
# Debian's Chromium for the browser tests, Debian's redis-server for the
# Redis forms' tests, Debian's nginx for the conformance kit's limit_req
# peer (the tests start each on loopback themselves), Debian's goaccess for
# cmd/trafficbench's comparison, and the pinned Datastar bundle.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/redis-server ] || [ ! -x /usr/sbin/nginx ] || [ ! -x /usr/bin/goaccess ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "the browser, Redis and nginx tests need Debian's chromium, redis-server and nginx (and cmd/trafficbench goaccess): run 'sudo apt-get install -y chromium redis-server nginx goaccess', then this again" >&2
		exit 2
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium redis-server nginx goaccess
fi
npm ci --no-audit --no-fund
go test -race -count=1 -timeout 30m ./...
