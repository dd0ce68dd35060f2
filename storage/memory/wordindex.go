package memory

import (
	"bytes"
	"sort"
	"strings"
	"sync"
)

// wordIndex is an inverted index from the words of owners' normalized
// search text to the owners holding them. Lexical search uses it to find
// the records containing a term without scanning every record's text.
//
// A word is a maximal run of non-separator bytes, where the separators are
// the ASCII bytes other than letters and digits (bytes of multi-byte UTF-8
// characters are never separators). A term with no separator byte is a
// substring of a text exactly when it is a substring of one of the text's
// words, so its matches are the union of the postings of the dictionary
// words that contain it: exact, with no record text read. A term with
// separators ("2,4-d", "100%") takes the postings of its longest run and
// confirms each with strings.Contains; a term made only of separators
// ("%") is checked against every record. Results are therefore exactly
// those of a full scan.
//
// Owners are indexed under a slot number that only grows; dropping an
// owner (deleted, or its text changed) leaves its postings in place and
// clears the slot, and the index is rebuilt from the live owners when
// dropped slots outnumber live ones.
type wordIndex struct {
	// dict holds every word once, each followed by a 0 byte, so that one
	// bytes.Index call finds the words containing a string.
	dict   []byte
	starts []int32 // offset in dict of each word, ascending
	ids    map[string]int32
	post   [][]int32 // word ID → slots holding it, ascending
	slots  []*owner  // slot → owner; nil once dropped
	live   int
}

func newWordIndex() *wordIndex {
	return &wordIndex{ids: make(map[string]int32)}
}

// isSep reports whether b separates words.
func isSep(b byte) bool {
	return b < 0x80 && !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || 'A' <= b && b <= 'Z')
}

// eachWord calls fn with every maximal run of non-separator bytes in s.
func eachWord(s string, fn func(w string)) {
	for i := 0; i < len(s); {
		for i < len(s) && isSep(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSep(s[j]) {
			j++
		}
		if j > i {
			fn(s[i:j])
		}
		i = j
	}
}

// add indexes o under a new slot.
func (ix *wordIndex) add(o *owner) {
	slot := int32(len(ix.slots))
	ix.slots = append(ix.slots, o)
	o.slot = slot
	ix.live++
	eachWord(o.search, func(w string) {
		id, ok := ix.ids[w]
		if !ok {
			id = int32(len(ix.starts))
			ix.ids[strings.Clone(w)] = id
			ix.starts = append(ix.starts, int32(len(ix.dict)))
			ix.dict = append(ix.dict, w...)
			ix.dict = append(ix.dict, 0)
			ix.post = append(ix.post, nil)
		}
		p := ix.post[id]
		if n := len(p); n == 0 || p[n-1] != slot { // a word repeated in the text
			ix.post[id] = append(p, slot)
		}
	})
}

// drop forgets o's slot.
func (ix *wordIndex) drop(o *owner) {
	if o.slot >= 0 && int(o.slot) < len(ix.slots) && ix.slots[o.slot] == o {
		ix.slots[o.slot] = nil
		ix.live--
	}
	o.slot = -1
}

// stale reports whether dropped slots outnumber live ones enough that the
// index should be rebuilt.
func (ix *wordIndex) stale() bool {
	dead := len(ix.slots) - ix.live
	return dead >= minCompact && dead > ix.live
}

// rebuild returns a fresh index of owners.
func rebuildWordIndex(owners []*owner) *wordIndex {
	ix := newWordIndex()
	for _, o := range owners {
		ix.add(o)
	}
	return ix
}

// wordsContaining calls fn with the ID of every dictionary word that
// contains part, which must hold no separator byte.
func (ix *wordIndex) wordsContaining(part []byte, fn func(w int32)) {
	d := ix.dict
	for i := 0; i < len(d); {
		j := bytes.Index(d[i:], part)
		if j < 0 {
			return
		}
		pos := int32(i + j)
		w := sort.Search(len(ix.starts), func(k int) bool { return ix.starts[k] > pos }) - 1
		fn(int32(w))
		// Resume at the next word.
		if w+1 < len(ix.starts) {
			i = int(ix.starts[w+1])
		} else {
			return
		}
	}
}

// termScratch is the per-query state of lexicalMatches, pooled.
type termScratch struct {
	seen   []uint32 // slot → 1 + index of the last term that looked at it
	count  []uint32 // slot → terms matched
	marked []int32  // slots with seen set, to reset
}

var scratchPool = sync.Pool{New: func() any { return new(termScratch) }}

// lexicalMatches calls fn once for every live slot whose owner's search
// text contains at least one of terms (normalized, distinct), with the number of terms it contains. check is called between
// terms and stops the search when it returns an error.
func (ix *wordIndex) lexicalMatches(terms []string, check func() error, fn func(o *owner, n int)) error {
	sc := scratchPool.Get().(*termScratch)
	defer scratchPool.Put(sc)
	if n := len(ix.slots); len(sc.seen) < n {
		sc.seen = make([]uint32, n)
		sc.count = make([]uint32, n)
	}
	defer func() {
		for _, s := range sc.marked {
			sc.seen[s], sc.count[s] = 0, 0
		}
		sc.marked = sc.marked[:0]
	}()

	for j, t := range terms {
		if err := check(); err != nil {
			return err
		}
		mark := uint32(j + 1)
		// visit counts slot s for this term once, confirming the match
		// with strings.Contains when exact is false.
		visit := func(s int32, exact bool) {
			if sc.seen[s] == mark {
				return
			}
			o := ix.slots[s]
			if o == nil {
				return
			}
			if sc.seen[s] == 0 {
				sc.marked = append(sc.marked, s)
			}
			sc.seen[s] = mark
			if exact || strings.Contains(o.search, t) {
				sc.count[s]++
			}
		}
		longest := ""
		runs := 0
		eachWord(t, func(w string) {
			runs++
			if len(w) > len(longest) {
				longest = w
			}
		})
		switch {
		case runs == 0: // separators only: every record is a candidate
			for s := range ix.slots {
				visit(int32(s), false)
			}
		default:
			exact := len(longest) == len(t)
			ix.wordsContaining([]byte(longest), func(w int32) {
				for _, s := range ix.post[w] {
					visit(s, exact)
				}
			})
		}
	}
	for _, s := range sc.marked {
		if n := sc.count[s]; n > 0 {
			fn(ix.slots[s], int(n))
		}
	}
	return nil
}
