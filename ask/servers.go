package ask

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// servers words, after prep ("across", "on"), the servers the question's
// lanes run on, for a question a room asks at once of every lane: "" when
// each lane is one server, as a lane always was, so a single-server
// question reads as it did; " across 3 servers" when every lane runs on
// the same several; " across each lane's servers" when they differ, since
// one count would then be wrong for some lane.
func servers(q Question, prep string) string {
	n, same, several := 0, true, false
	for i, l := range q.Lanes {
		m := max(l.Spec.Nodes, 1)
		several = several || m > 1
		if i > 0 && m != n {
			same = false
		}
		n = m
	}
	switch {
	case !several:
		return ""
	case same:
		return fmt.Sprintf(" %s %d servers", prep, n)
	}
	return " " + prep + " each lane's servers"
}

// theClient names the client a room's question is about: "the client
// “alice”" (capitalized at a sentence's start). A bare key read wrongly
// where the scenario names no client, whose key is "default": "default
// sends 10 requests" reads as an adverb, not a name.
func theClient(r scenario.Request) string {
	return "the client “" + r.KeyName() + "”"
}

// capitalized starts a sentence with s.
func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
