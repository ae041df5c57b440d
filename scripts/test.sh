#!/usr/bin/env bash
# Runs every test, installing first what the tests need on a fresh machine:
# Debian's Chromium for the browser tests and the pinned Datastar bundle.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "the browser tests need Debian's chromium: run 'sudo apt-get install -y chromium', then this again" >&2
		exit 2
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
npm ci --no-audit --no-fund
go test -race -count=1 -timeout 30m ./...
