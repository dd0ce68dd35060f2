package lexical

// matcher finds every query term and every first stem of the query's
// subject and class phrases in one pass over a field's bytes: an
// Aho–Corasick automaton compiled into a DFA over byte classes. It is
// built once per PreparedQuery and read-only afterwards.
//
// It replaces one strings.Contains per term and one word-by-word stemming
// pass per field; both remain as the reference path (used when the
// patterns are too long to compile) and the tests check the two agree.
type matcher struct {
	classOf [256]uint8
	nclass  int
	// trans[state*nclass+class] is next*nclass<<1 | 1 if next has
	// outputs: the row offset of the next state, premultiplied so the
	// per-byte loop has no multiplication, with an output flag. uint16
	// keeps the table small enough for the L1 cache; queries whose table
	// would not fit use the reference path.
	trans    []uint16
	out      [][]int32 // patterns ending at each state, suffixes included
	patterns []acPattern
}

// acPattern is one distinct pattern string with the roles it plays.
type acPattern struct {
	size    int
	term    int           // index into PreparedQuery.terms, or -1
	wordRun bool          // the term starts with a word rune
	phrases []groupPhrase // phrases whose first stem is the pattern
}

// maxMatcherBytes bounds the total pattern length compiled into a
// matcher.
const maxMatcherBytes = 4096

// newMatcher compiles the terms and the detector's first stems, or returns
// nil when they are too long.
func newMatcher(terms []queryTerm, det *detector) *matcher {
	m := &matcher{}
	ids := make(map[string]int)
	total := 0
	pattern := func(p string) *acPattern {
		if id, ok := ids[p]; ok {
			return &m.patterns[id]
		}
		ids[p] = len(m.patterns)
		total += len(p)
		m.patterns = append(m.patterns, acPattern{size: len(p), term: -1})
		return &m.patterns[len(m.patterns)-1]
	}
	for i, t := range terms {
		if t.text == "" {
			continue
		}
		p := pattern(t.text)
		if p.term < 0 {
			p.term = i
			r, _ := decodeRune(t.text, 0)
			p.wordRun = isWordRune(r)
		}
	}
	if det != nil {
		for first, gps := range det.byFirst {
			p := pattern(first)
			p.phrases = gps
		}
	}
	if total == 0 || total > maxMatcherBytes {
		return nil
	}
	// Byte classes: one per byte used by some pattern, 0 for the rest.
	m.nclass = 1
	for s := range ids {
		for i := 0; i < len(s); i++ {
			if m.classOf[s[i]] == 0 {
				if m.nclass == 256 {
					return nil // every byte value used: no room for "other"
				}
				m.classOf[s[i]] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	// Trie, then failure links breadth first, completing the transitions
	// into a DFA. next holds state numbers until the last step turns them
	// into premultiplied offsets in place.
	nc := m.nclass
	if (total+1)*nc >= 1<<15 {
		return nil // offsets<<1 would not fit uint16
	}
	const none = 0xFFFF
	next := make([]uint16, (total+1)*nc) // at most one state per pattern byte
	for i := range next {
		next[i] = none
	}
	m.out = make([][]int32, 1, total+1)
	for s, id := range ids {
		state := 0
		for i := 0; i < len(s); i++ {
			c := int(m.classOf[s[i]])
			if next[state*nc+c] == none {
				next[state*nc+c] = uint16(len(m.out))
				m.out = append(m.out, nil)
			}
			state = int(next[state*nc+c])
		}
		m.out[state] = append(m.out[state], int32(id))
	}
	next = next[:len(m.out)*nc]
	fail := make([]uint16, len(m.out))
	queue := make([]uint16, 0, len(m.out))
	for c := range nc {
		if t := next[c]; t == none {
			next[c] = 0
		} else {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := int(queue[0])
		queue = queue[1:]
		f := int(fail[s])
		if len(m.out[f]) > 0 {
			m.out[s] = append(m.out[s], m.out[f]...)
		}
		for c := range nc {
			t := next[s*nc+c]
			if t == none {
				next[s*nc+c] = next[f*nc+c]
				continue
			}
			fail[t] = next[f*nc+c]
			queue = append(queue, t)
		}
	}
	for i, t := range next {
		v := t * uint16(nc) << 1
		if len(m.out[t]) > 0 {
			v |= 1
		}
		next[i] = v
	}
	m.trans = next
	return m
}

// scan matches the field's normalized text: it sets bit in termMask for
// every term found and marks in state the groups found; tags says the
// field is a Tags field. With tf not nil every occurrence is also counted
// in it (BM25).
func (m *matcher) scan(text string, wordPrefix bool, termMask []uint64, bit uint64, groups []detectGroup, state []uint8, tags bool, tf *tfState) {
	off := uint16(0)
	trans := m.trans
	for i := 0; i < len(text); i++ {
		v := trans[off+uint16(m.classOf[text[i]])]
		off = v >> 1
		if v&1 == 0 {
			continue
		}
		for _, id := range m.out[off/uint16(m.nclass)] {
			p := &m.patterns[id]
			start := i + 1 - p.size
			if p.term >= 0 && (tf != nil || termMask[p.term]&bit == 0) && (!wordPrefix || !p.wordRun || isWordStart(text, start)) {
				termMask[p.term] |= bit
				if tf != nil {
					tf.occur(p.term, start)
				}
			}
			if len(p.phrases) > 0 && isWordStart(text, start) {
				markGroups(text, start, p.phrases, groups, state, tags)
			}
		}
	}
}

// markGroups marks the groups of the phrases that occur at start.
func markGroups(text string, start int, phrases []groupPhrase, groups []detectGroup, state []uint8, tags bool) {
	for _, gp := range phrases {
		st := state[gp.group]
		if st&groupFound != 0 && !(tags && groups[gp.group].cat == CategorySubject && st&groupInTag == 0) {
			continue
		}
		if wordsAt(text, start, gp.words) {
			st |= groupFound
			if tags {
				st |= groupInTag
			}
			state[gp.group] = st
		}
	}
}
