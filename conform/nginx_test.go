package conform_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/windowlab/playground/conform"
)

// nginxPath is where Debian's nginx package installs the server.
const nginxPath = "/usr/sbin/nginx"

// nginxConf is limit_req as the peer's mapping says, keyed by the
// X-Client-Key header, serving a static file (limit_req runs before the
// content phase; a `return` would answer before it). One process, no
// daemon, everything under the test's directory, so that it runs as any
// user.
const nginxConf = `master_process off;
daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	limit_req_zone $http_x_client_key zone=z:1m rate=%[3]dr/s;
	limit_req_status 429;
	server {
		listen 127.0.0.1:%[2]d;
		root %[1]s/www;
		location / { limit_req zone=z%[4]s; }
	}
}
`

// nginxTarget starts nginx with limit_req at 2r/s and the given burst
// arguments (" burst=3 nodelay", or "" for none) on a free loopback port
// for the rest of the test (failing without it when CI is true, as
// redistest does) and returns an HTTP target for it.
func nginxTarget(burst string) func(*testing.T) conform.Target {
	return func(t *testing.T) conform.Target { return startNginx(t, burst) }
}

func startNginx(t *testing.T, burst string) conform.Target {
	if _, err := os.Stat(nginxPath); err != nil {
		msg := fmt.Sprintf("nginx is not installed at %s (install it with `apt-get install -y nginx`): %v", nginxPath, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "www", "index.html"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, dir, port, 2, burst)), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd := exec.Command(nginxPath, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	// Wait on the real process until it answers (no sleep stands in for it).
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			break
		}
		select {
		case <-exited:
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited: %s %s", log.String(), errLog)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not answer on %s: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond) // waits on the nginx process starting to answer
	}
	return conform.HTTP("nginx limit_req", conform.HTTPOptions{URL: url, ToleranceMs: 150})
}
