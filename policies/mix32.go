package policies

// Mix32 hashes a string key to 32 bits: FNV-1a (32-bit, offset basis
// 2166136261, prime 16777619) over the bytes, then the murmur3 fmix32
// finaliser (xor-shift 16, × 0x85ebca6b, xor-shift 13, × 0xc2b2ae35,
// xor-shift 16) so that keys differing only in their last byte spread over
// all 32 bits. It is the default hash for string keys; use
// Key(Mix32(s)) as a policy key. It is a hash, not a MAC: callers facing
// adversarial keys should key it themselves.
func Mix32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
