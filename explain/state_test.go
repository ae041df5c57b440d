package explain

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
)

// On several servers with the next node known the line names the node and
// then says what Status says of the same decision on one server.
func TestStatusOnNode(t *testing.T) {
	s := policies.State{Capacity: 5}
	for _, tc := range []struct {
		name string
		next policies.Decision
		node int
		want string
	}{
		{"admitted", policies.Decision{Allowed: true}, 1, " · the next request reaches node 2 and would be admitted"},
		{"refused", policies.Decision{RetryAfterMs: 3000}, 0, " · the next request reaches node 1 and would be refused, retry after 3 s"},
		{"queued", policies.Decision{Allowed: true, DelayMs: 200}, 2, " · the next request reaches node 3 and would be admitted and "},
		{"never", policies.Decision{Never: true}, 3, " · the next request reaches node 4 and can never pass (its cost is above the capacity)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StatusOnNode("fixed-window", 1000, 5, s, tc.next, tc.node)
			if !strings.Contains(got, tc.want) {
				t.Errorf("StatusOnNode = %q, want it to contain %q", got, tc.want)
			}
			one := Status("fixed-window", 1000, 5, s, &tc.next)
			_, outcome, _ := strings.Cut(one, " · the next request ")
			if !strings.HasSuffix(got, " and "+outcome) {
				t.Errorf("StatusOnNode = %q, want it to end as Status does: %q", got, outcome)
			}
		})
	}
}
