package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/cli"
)

// Store flags that contradict each other are refused before anything
// starts, naming what to give instead.
func TestServeRefusesContradictoryStoreFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-memory", "-data", t.TempDir()}, "-memory keeps nothing"},
		{[]string{"-memory", "-nats", "nats://127.0.0.1:1"}, "-memory keeps nothing"},
		{[]string{"-data", t.TempDir(), "-nats", "nats://127.0.0.1:1"}, "give one of them"},
	} {
		err := runServe(context.Background(), c.args, io.Discard)
		if _, ok := err.(cli.Usage); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
}

// An external NATS server that is not there is an error at start, not a
// server that fails on its first page.
func TestServeSaysWhenNATSIsUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := runServe(ctx, []string{"-addr", "127.0.0.1:0", "-nats", "nats://" + freeAddr(t)}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-nats") {
		t.Errorf("serve -nats to a closed port: %v, want an error naming -nats", err)
	}
}

func TestNATSCommandRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"extra"}, {"-listen", "no-port"}, {"-bogus"},
		{"-cluster", "127.0.0.1:6222"}, {"-routes", "nats-route://127.0.0.1:6222"},
		{"-listen", "127.0.0.1:0", "-cluster", "no-port", "-routes", "nats-route://127.0.0.1:6222"},
		{"-listen", "127.0.0.1:0", "-cluster", "127.0.0.1:0", "-routes", "127.0.0.1:6222"},
		{"-listen", "127.0.0.1:0", "-cluster", "127.0.0.1:0", "-routes", "nats-route://host-without-port"},
	} {
		err := run(context.Background(), append([]string{"nats", "-data", t.TempDir()}, args...), nil, io.Discard, io.Discard)
		if exitCode(err, io.Discard) != 2 {
			t.Errorf("playground nats %v: %v, want exit status 2", args, err)
		}
	}
}
