package policies

import "testing"

// TestSlidingLogGrowsItsRingsWithoutWaste checks what the rings cost as keys
// arrive: each chunk of rings is allocated once and never copied, so what
// was allocated on the way is what is held, and what is held exceeds the
// rings themselves by less than one chunk. (Grown a quarter at a time, as
// append does once large, a single slice had allocated five times the
// rings; grown by doubling, it held up to twice them.) Stats counts the
// chunks as the allocator sized them.
func TestSlidingLogGrowsItsRingsWithoutWaste(t *testing.T) {
	tests := []struct {
		name        string
		limit, keys int64
	}{
		{"limit 1,000: one ring a chunk", 1_000, 100},
		{"limit 100: many rings a chunk", 100, 1_000},
		{"limit 1: a chunk of 8 KB rings", 1, 10_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newKeyed(newSlidingLogRule(Params{Limit: tt.limit, WindowMs: 1_000}))
			ringBytes := tt.limit * 8
			perChunk := max(1, chunkBytes/ringBytes)
			chunk := perChunk * ringBytes
			if chunk > chunkBytes && perChunk != 1 {
				t.Fatalf("a chunk of %d rings is %d bytes, over %d", perChunk, chunk, chunkBytes)
			}
			var made int64
			seen := map[*int64]bool{}
			for k := range tt.keys {
				if d := l.Decide(Key(k), k, 1); !d.Allowed {
					t.Fatalf("key %d: allowed = false, want true", k)
				}
				for _, ch := range l.rings.chunks {
					if !seen[&ch[0]] {
						seen[&ch[0]] = true
						made += int64(cap(ch)) * 8
					}
				}
			}
			var held int64
			for _, ch := range l.rings.chunks {
				held += int64(cap(ch)) * 8
			}
			if made != held {
				t.Errorf("%d bytes of rings allocated on the way, %d held: a chunk was copied or dropped", made, held)
			}
			// Past the newest chunk's unused tail, the allocator rounds a
			// large object up to whole 8 KB pages.
			spare := chunk + int64(len(l.rings.chunks))*8<<10
			if rings := tt.keys * ringBytes; held < rings || held-rings >= spare {
				t.Errorf("%d keys' rings (%d bytes) held in %d bytes, want under one chunk and a page a chunk (%d) more", tt.keys, rings, held, spare)
			}
			if got := l.Stats().HeapBytes - l.keys.heapBytes(); got < held {
				t.Errorf("Stats counts %d bytes beside the key table, under the %d the chunks hold", got, held)
			}
		})
	}
}
