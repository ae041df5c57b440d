// Package redisbench is the committed measurement of the policies' Redis
// forms, redis-bench.json, embedded so that a page shows the figures a
// benchmark measured rather than figures typed by hand. The file is written
// by the command in Command (limiter's TestRedisBenchFile, which also checks
// it against a fresh measurement); nothing here measures.
//
// Package policies does not import this one: the measurement is of the
// policies, not a part of them.
package redisbench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// Command writes redis-bench.json (and the table in docs/redis.md).
const Command = "go test ./limiter/ -run TestRedisBenchFile -update-redis-bench"

// Path is the file's place in the repository, for pages that cite it.
const Path = "limiter/redisbench/redis-bench.json"

//go:embed redis-bench.json
var committed []byte

// Report is redis-bench.json.
type Report struct {
	Command string   `json:"command"`
	Machine Machine  `json:"machine"`
	Redis   string   `json:"redisVersion"`
	Params  Settings `json:"params"`
	Forms   []Row    `json:"forms"`
	Anchor  Row      `json:"anchor"` // go-redis/redis_rate v10, GCRA, reading Redis TIME
	Batch   Batch    `json:"batch"`
	Race    Race     `json:"readThenWrite"`
}

// Machine is where the figures were measured.
type Machine struct {
	GOOS, GOARCH string
	CPUs         int
	Go           string
	Load         string // one-minute load average when measured
}

// Settings are the policies' settings and the workload measured.
type Settings struct {
	Limit       int64 `json:"limit"`
	WindowMs    int64 `json:"windowMs"`
	Buckets     int64 `json:"buckets"`
	Keys        int   `json:"keys"`
	RequestsKey int   `json:"requestsPerKey"`
	MeasureMs   int64 `json:"msPerThroughputRun"`
	Rounds      int   `json:"rounds"` // throughput runs per figure, median reported
}

// Row is one form's figures.
type Row struct {
	Form string `json:"form"` // the label the table shows
	// Policy and Arithmetic are the policy measured, its arithmetic as
	// policies.Normalised gives it ("" for a policy without one); both
	// are "" for the anchor.
	Policy     string `json:"policy,omitempty"`
	Arithmetic string `json:"arithmetic,omitempty"`
	// Commands is what Redis ran per decision inside the script (GET,
	// SET, LINDEX, …), from INFO commandstats.
	Commands float64 `json:"commandsPerDecision"`
	// RoundTrips is the commands the client sent per decision (EVALSHA),
	// each one round trip when sent alone.
	RoundTrips  float64 `json:"roundTripsPerDecision"`
	BytesPerKey int64   `json:"bytesPerKey"` // MEMORY USAGE, averaged over the keys
	// ServerMicros is Redis's own time per script call (INFO
	// commandstats) in the first 1-client throughput run: the figure the
	// machine's load disturbs least.
	ServerMicros float64 `json:"serverMicrosPerDecision"`
	PerSecond1   float64 `json:"decisionsPerSecond1Client"`
	PerSecond8   float64 `json:"decisionsPerSecond8Clients"`
}

// Batch is one form's pipelined decisions against the same requests sent
// one at a time.
type Batch struct {
	Form       string  `json:"form"`
	Size       int     `json:"benchBatch1"`
	OneAtATime float64 `json:"oneAtATimePerSecond"`
	Pipelined  float64 `json:"pipelinedPerSecond"`
}

// Race is read-then-write against the script under racing clients.
type Race struct {
	Clients        int   `json:"clients"`
	Limit          int64 `json:"limit"`
	Windows        int   `json:"windows"`
	Admitted       int64 `json:"admitted"`
	ScriptAdmitted int64 `json:"scriptAdmitted"`
}

// Parse reads a report, refusing fields it does not know, so that a file
// written by a newer benchmark is not read as if it had no such figures.
func Parse(data []byte) (Report, error) {
	var r Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Report{}, fmt.Errorf("redisbench: %s: %w (rewrite it with %s)", Path, err, Command)
	}
	return r, nil
}

// Committed is the embedded report, read once.
var Committed = sync.OnceValues(func() (Report, error) { return Parse(committed) })

// Of is the row measuring the named policy with the given arithmetic (as
// policies.Normalised gives it), false if the report has none.
func (r Report) Of(policy, arithmetic string) (Row, bool) {
	for _, f := range r.Forms {
		if f.Policy == policy && f.Arithmetic == arithmetic {
			return f, true
		}
	}
	return Row{}, false
}
