package lessons

import (
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestEstimatesKeptAreTheMeasured: a result EstimateErrors keeps is the one
// it measures afresh, a caller changing its copy changes nothing kept, and
// inputs that differ in one option are not confused.
func TestEstimatesKeptAreTheMeasured(t *testing.T) {
	s := scenario.Scenario{Limit: 4, WindowMs: 10_000}
	for at := int64(0); at < 60_000; at += 700 {
		s.Requests = append(s.Requests, scenario.Request{At: at, Cost: 1, Count: 1})
	}
	k2 := []scenario.PolicySpec{{Name: policies.SlidingBuckets, Buckets: 2}}
	k5 := []scenario.PolicySpec{{Name: policies.SlidingBuckets, Buckets: 5}}
	fresh, err := estimateErrors(s, k2)
	if err != nil {
		t.Fatal(err)
	}
	first, err := EstimateErrors(s, k2)
	if err != nil {
		t.Fatal(err)
	}
	first[0].Worst = -1 // the caller's copy
	again, _ := EstimateErrors(s, k2)
	if again[0] != fresh[0] {
		t.Errorf("k=2 again: %+v, want the measured %+v", again[0], fresh[0])
	}
	other, _ := EstimateErrors(s, k5)
	if want, _ := estimateErrors(s, k5); other[0] != want[0] {
		t.Errorf("k=5: %+v, want %+v", other[0], want[0])
	}
	if other[0] == fresh[0] {
		t.Errorf("k=2 and k=5 measured alike (%+v): the traffic does not tell them apart", fresh[0])
	}
}
