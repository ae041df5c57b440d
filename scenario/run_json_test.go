package scenario

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// estimateExact is the estimate as a fraction in lowest terms, as the lanes
// show it ("25/6", not "125000/30000"), and a whole number without "/1".
func TestEstimateExactIsReduced(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 5, "windowMs": 30000,
		"policies": [{"name": "sliding-counter", "arithmetic": "exact"}, "gcra"],
		"requests": [{"at": 0, "count": 5}, {"at": 35000}, {"at": 40000, "probe": true}]}`))
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	data, err := json.Marshal(res)
	require.NoError(t, err)
	var out struct {
		Results []struct {
			Decisions []struct {
				EstimateExact string `json:"estimateExact"`
			} `json:"decisions"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(data, &out))
	var got [][]string
	for _, r := range out.Results {
		var exact []string
		for _, d := range r.Decisions {
			exact = append(exact, d.EstimateExact)
		}
		got = append(got, exact)
	}
	assert.Equal(t, [][]string{
		// the counter: 0 … 4 in the first window; 5 × 25/30 at 35 s (refused
		// at 5 1/6); 5 × 20/30 at 40 s
		{"0", "1", "2", "3", "4", "25/6", "10/3"},
		// gcra: drained by 30 s, so the request at 35 s is admitted and
		// holds its 6 s interval until 41 s: 1 s of 6 s left at 40 s
		{"0", "1", "2", "3", "4", "0", "1/6"},
	}, got)
}
