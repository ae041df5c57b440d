package policies

import "testing"

// TestSlidingLogGrowsItsRingsWithoutWaste checks what the shared ring slice
// costs as keys arrive: a new key's ring is added by doubling, so what was
// allocated on the way stays within three times what the rings hold (grown
// a quarter at a time, as append does once large, it was five times).
func TestSlidingLogGrowsItsRingsWithoutWaste(t *testing.T) {
	const limit, keys = 1_000, 100
	ringBytes := int64(limit * 8)
	tests := []struct {
		name    string
		maxCap  int64 // rings the backing slice may hold at the end
		maxMade int64 // rings allocated on the way, all growths summed
	}{
		{"grown key by key", 2 * keys, 3 * keys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newSlidingLog(Params{Limit: limit, WindowMs: 1_000})
			made, lastCap := int64(cap(l.times)), cap(l.times)
			for k := range keys {
				if d := l.Decide(Key(k), int64(k), 1); !d.Allowed {
					t.Fatalf("key %d: allowed = false, want true", k)
				}
				if c := cap(l.times); c != lastCap {
					made += int64(c)
					lastCap = c
				}
			}
			if got := int64(cap(l.times)) * 8 / ringBytes; got > tt.maxCap {
				t.Errorf("the rings' slice holds %d rings for %d keys, want at most %d", got, keys, tt.maxCap)
			}
			if got := made * 8 / ringBytes; got > tt.maxMade {
				t.Errorf("%d rings' worth allocated for %d keys, want at most %d", got, keys, tt.maxMade)
			}
		})
	}
}
