package manifest

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// ARMUniqueString computes ARM's uniqueString(args...): the arguments
// joined with "-", hashed as UTF-8 by the 64-bit Murmur variant of ARM's
// deployment engine (two 32-bit lanes, MurmurHash3's mixing), and written
// as 13 characters of the alphabet a-z2-7, five bits at a time from the top
// of the hash. Names built with it equal what a template deployment of the
// same arguments produced.
func ARMUniqueString(args ...string) string {
	h := armHash64([]byte(strings.Join(args, "-")))
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	var out [13]byte
	for i := range out {
		out[i] = alphabet[h>>59]
		h <<= 5
	}
	return string(out[:])
}

// armHash64 is the hash behind uniqueString (seed 0).
func armHash64(data []byte) uint64 {
	const (
		c1 = 0x239b961b
		c2 = 0xab0e9789
	)
	mix1 := func(k uint32) uint32 { return bits.RotateLeft32(k*c1, 15) * c2 }
	mix2 := func(k uint32) uint32 { return bits.RotateLeft32(k*c2, 17) * c1 }
	// le reads up to four bytes little-endian, as the tail does too.
	le := func(b []byte) uint32 {
		var v uint32
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint32(b[i])
		}
		return v
	}
	var h1, h2 uint32
	n := len(data)
	i := 0
	for ; i+8 <= n; i += 8 {
		h1 ^= mix1(binary.LittleEndian.Uint32(data[i:]))
		h1 = bits.RotateLeft32(h1, 19) + h2
		h1 = h1*5 + 0x561ccd1b
		h2 ^= mix2(binary.LittleEndian.Uint32(data[i+4:]))
		h2 = bits.RotateLeft32(h2, 13) + h1
		h2 = h2*5 + 0x0bcaa747
	}
	if tail := data[i:]; len(tail) > 0 {
		h1 ^= mix1(le(tail[:min(len(tail), 4)]))
		if len(tail) > 4 {
			h2 ^= mix2(le(tail[4:]))
		}
	}
	h1 ^= uint32(n)
	h2 ^= uint32(n)
	h1 += h2
	h2 += h1
	h1, h2 = fmix32(h1), fmix32(h2)
	h1 += h2
	h2 += h1
	return uint64(h2)<<32 | uint64(h1)
}

// fmix32 is MurmurHash3's finalizer.
func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
