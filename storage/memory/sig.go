package memory

import "math/bits"

// A signature is a one-hash Bloom filter of the byte trigrams of a record's
// normalized search text. A term can only be a substring of the text if
// every trigram of the term is in the text, so a record whose signature
// lacks one of the term's trigrams is skipped without scanning its text;
// the others are confirmed with strings.Contains. Results are therefore
// exactly those of a full scan; the filter only saves work.
//
// The filter has about two bits per byte of text, rounded up to a power of
// two (between 64 bits and 128 Ki bits): with typical text (distinct
// trigrams ≈ 60 % of bytes) about 15 % of bits are set, so a term of k
// trigrams passes a record that lacks it with probability ≈ 0.15^k. Terms
// shorter than three bytes have no trigrams and are always scanned.
type signature struct {
	words []uint64
	shift uint8 // 32 - log2(len(words)*64)
}

const (
	minSigBits = 64
	maxSigBits = 1 << 17
)

func trigramHash(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1
}

func makeSignature(text string) signature {
	if len(text) < 3 {
		return signature{}
	}
	n := min(max(2*len(text), minSigBits), maxSigBits)
	lg := bits.Len(uint(n - 1)) // next power of two
	s := signature{words: make([]uint64, (1<<lg)/64), shift: uint8(32 - lg)}
	for i := 0; i+2 < len(text); i++ {
		s.set(trigramHash(text[i], text[i+1], text[i+2]))
	}
	return s
}

func (s *signature) set(h uint32) {
	bit := h >> s.shift
	s.words[bit>>6] |= 1 << (bit & 63)
}

// mayContain reports whether the text may contain a term whose trigram
// hashes are hs. It is exact when it returns false.
func (s *signature) mayContain(hs []uint32) bool {
	if len(hs) == 0 {
		return true
	}
	if len(s.words) == 0 {
		return false // text shorter than three bytes cannot hold a trigram
	}
	for _, h := range hs {
		bit := h >> s.shift
		if s.words[bit>>6]&(1<<(bit&63)) == 0 {
			return false
		}
	}
	return true
}

// termTrigrams returns the distinct trigram hashes of term.
func termTrigrams(term string) []uint32 {
	var hs []uint32
outer:
	for i := 0; i+2 < len(term); i++ {
		h := trigramHash(term[i], term[i+1], term[i+2])
		for _, x := range hs {
			if x == h {
				continue outer
			}
		}
		hs = append(hs, h)
	}
	return hs
}
