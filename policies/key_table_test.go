package policies

import (
	"math/rand/v2"
	"testing"
)

// TestKeyTableAgreesWithMap inserts and looks up many keys, key 0 and
// colliding-looking sequential keys included, and compares with a Go map.
func TestKeyTableAgreesWithMap(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 6))
	tab := newKeyTable[int64]()
	want := map[Key]int64{}
	keys := []Key{0, 1, 2, 1 << 63, ^Key(0)}
	for i := range 5000 {
		keys = append(keys, Key(i)*1024, r.Uint64())
	}
	for i, k := range keys {
		if got := tab.find(k); (got != nil) != (want[k] != 0) {
			t.Fatalf("step %d: find(%d) present = %v, want %v", i, k, got != nil, want[k] != 0)
		}
		*tab.insert(k) += int64(i) + 1
		want[k] += int64(i) + 1
	}
	if tab.len() != len(want) {
		t.Errorf("len() = %d, want %d", tab.len(), len(want))
	}
	c := tab.clone()
	*c.insert(7) = -1
	for k, v := range want {
		if got := tab.get(k); got != v {
			t.Fatalf("get(%d) = %d, want %d", k, got, v)
		}
	}
	if got := tab.get(7); got == -1 {
		t.Errorf("writing to a clone changed the original")
	}
	if got := tab.get(123456789); got != 0 {
		t.Errorf("get of an absent key = %d, want 0", got)
	}
}
