package chunk

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Recursive splitter defaults; RecursiveOptions says why.
const (
	defaultSize    = 1000
	defaultOverlap = 200
)

// defaultSeparators returns the separators tried by default, in order:
// paragraphs, lines, sentences, words, so a cut falls at the largest
// boundary that fits. Single runes are always
// the last resort.
func defaultSeparators() []string { return []string{"\n\n", "\n", ". ", " "} }

// RecursiveOptions configures a Recursive splitter. The zero value means the
// defaults.
//
// The defaults are chunks of 1000 runes sharing 200 (a fifth)
// with their neighbour, so a sentence cut at a boundary is whole in one of
// the two.
//
// The Indexer splits item files and FAQ answers with them. 1000 runes are
// about 340 tokens of text-embedding-3-small's tokenizer on pt-BR product
// leaflets (2.93 runes a token) and 250 by llm.EstimateTokens: a chunk gives
// a query one dose table or one paragraph to meet instead of the whole
// leaflet, whose other sections would dilute its embedding. Larger chunks
// (1,500 or 2,000 runes, blocks of 500–800 tokens, which hold a whole
// leaflet) measured worse or even in retrieval and chat answers (figures
// in BENCHMARKS.md, "Measurements behind defaults"). For larger chunks,
// give the Indexer a splitter of RecursiveOptions{Size: 2000}
// (IndexerOptions.FileChunker).
type RecursiveOptions struct {
	// Size is the largest chunk, in runes; 0 means 1000.
	Size int
	// Overlap is the most runes two consecutive chunks share; 0 means
	// 200 and a negative value means no overlap. It must be
	// smaller than Size.
	Overlap int
	// Separators are tried in order; nil means paragraphs, lines, sentences, words (in that order). Cutting
	// between runes is always added as the last resort. Empty strings are
	// ignored.
	Separators []string
}

// Recursive is a LangChain-style recursive character splitter. It is
// immutable and safe for concurrent use.
//
// Semantics, for a text and a separator list: the first separator occurring
// in the text cuts it into pieces, each separator staying at the end of the
// piece it closes (LangChain's keep_separator="end"). Pieces shorter than
// Size are packed greedily into chunks of at most Size runes; when a chunk
// is full, the next one starts with as many of its last whole pieces as fit
// in Overlap runes. A piece of Size runes or more is split again with the
// separators after the one that cut it, ending with single runes. Every
// chunk therefore holds at most Size runes.
//
// Each chunk is trimmed of white space (LangChain's strip_whitespace), and
// differs from LangChain's output in two ways only: a chunk whose trimmed
// text lies inside its neighbour's is dropped (LangChain can emit such
// repeats when pieces are white space), and single runes are the last
// resort even when the separator list does not end with "".
type Recursive struct {
	size, overlap int
	seps          []string
}

// NewRecursive returns a Recursive splitter. It fails with an error wrapping
// ErrInvalidOptions when Size is negative or Overlap is not smaller than
// Size.
func NewRecursive(opts RecursiveOptions) (*Recursive, error) {
	size, overlap := opts.Size, opts.Overlap
	if size == 0 {
		size = defaultSize
	}
	if overlap == 0 {
		overlap = defaultOverlap
	}
	if overlap < 0 {
		overlap = 0
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: size %d is negative", ErrInvalidOptions, size)
	}
	if overlap >= size {
		return nil, fmt.Errorf("%w: overlap %d must be smaller than size %d", ErrInvalidOptions, overlap, size)
	}
	seps := opts.Separators
	if seps == nil {
		seps = defaultSeparators()
	}
	clean := make([]string, 0, len(seps))
	for _, s := range seps {
		if s != "" {
			clean = append(clean, s)
		}
	}
	return &Recursive{size: size, overlap: overlap, seps: clean}, nil
}

// sizeRunes returns the largest chunk size in runes.
func (r *Recursive) sizeRunes() int { return r.size }

// overlapRunes returns the largest overlap between consecutive chunks in runes.
func (r *Recursive) overlapRunes() int { return r.overlap }

// Split cuts text into chunks, numbered from 0. Invalid UTF-8 bytes count as
// one rune each. An empty or white-space-only text gives no chunks.
func (r *Recursive) Split(text string) []Chunk {
	var spans []span
	r.splitRange(text, 0, len(text), &spans)
	return spansToChunks(text, spans)
}

// splitRange appends to out the chunk spans of s[lo:hi], untrimmed.
func (r *Recursive) splitRange(s string, lo, hi int, out *[]span) {
	if lo >= hi {
		return
	}
	if utf8.RuneCountInString(s[lo:hi]) <= r.size {
		// What packing the pieces would give, without cutting them.
		*out = append(*out, span{lo, hi})
		return
	}
	r.splitSeps(s, lo, hi, 0, out)
}

type span struct{ lo, hi int }

// piece is a run of the source and its length in runes.
type piece struct{ lo, hi, runes int }

// splitSeps implements LangChain's _split_text with the separators from
// index si on; when none of them occurs, the text is cut between runes.
func (r *Recursive) splitSeps(s string, lo, hi, si int, out *[]span) {
	if lo >= hi {
		return
	}
	// Find the first separator present in the text.
	sep, next := "", len(r.seps)
	for i := si; i < len(r.seps); i++ {
		if strings.Contains(s[lo:hi], r.seps[i]) {
			sep, next = r.seps[i], i+1
			break
		}
	}
	if sep == "" {
		r.runeWindows(s, lo, hi, out)
		return
	}
	pieces := cut(s, lo, hi, sep)
	var good []piece
	for _, p := range pieces {
		if p.runes < r.size {
			good = append(good, p)
			continue
		}
		if len(good) > 0 {
			r.merge(good, out)
			good = good[:0]
		}
		r.splitSeps(s, p.lo, p.hi, next, out)
	}
	if len(good) > 0 {
		r.merge(good, out)
	}
}

// cut splits s[lo:hi] after each occurrence of sep (non-empty).
func cut(s string, lo, hi int, sep string) []piece {
	var ps []piece
	for i := lo; i < hi; {
		j := strings.Index(s[i:hi], sep)
		end := hi
		if j >= 0 {
			end = i + j + len(sep)
		}
		ps = append(ps, piece{i, end, utf8.RuneCountInString(s[i:end])})
		i = end
	}
	return ps
}

// runeWindows is merge over single-rune pieces, without materializing
// them: windows of r.size runes, each starting r.size-r.overlap runes after
// the previous one, the last one ending at hi.
func (r *Recursive) runeWindows(s string, lo, hi int, out *[]span) {
	step := r.size - r.overlap
	start, end, count := lo, lo, 0 // count runes in s[start:end]
	for end < hi {
		if count == r.size {
			*out = append(*out, span{start, end})
			for range step {
				_, n := utf8.DecodeRuneInString(s[start:end])
				start += n
			}
			count -= step
		}
		_, n := utf8.DecodeRuneInString(s[end:hi])
		end += n
		count++
	}
	if start < end {
		*out = append(*out, span{start, end})
	}
}

// merge implements LangChain's _merge_splits with an empty join separator
// (separators are kept in the pieces): pieces are packed into chunks of at
// most r.size runes, and each new chunk starts with the trailing pieces of
// the previous one that fit in r.overlap runes.
func (r *Recursive) merge(ps []piece, out *[]span) {
	head, total := 0, 0 // current chunk is ps[head:i]
	for i, p := range ps {
		if total+p.runes > r.size && i > head {
			*out = append(*out, span{ps[head].lo, ps[i-1].hi})
			for head < i && (total > r.overlap || total+p.runes > r.size) {
				total -= ps[head].runes
				head++
			}
		}
		total += p.runes
	}
	if head < len(ps) {
		*out = append(*out, span{ps[head].lo, ps[len(ps)-1].hi})
	}
}

// spansToChunks trims the spans, drops empty ones and ones contained in a
// neighbour (packing can leave a chunk whose text, once trimmed, is inside
// the previous or the next one).
func spansToChunks(s string, spans []span) []Chunk {
	chunks := make([]Chunk, 0, len(spans))
	tr := trimmer{s: s}
	for _, sp := range spans {
		lo, hi := tr.trim(sp.lo, sp.hi)
		if lo >= hi {
			continue
		}
		if n := len(chunks); n > 0 {
			last := &chunks[n-1]
			if hi <= last.Start+len(last.Text) {
				continue // inside the previous chunk
			}
			if lo <= last.Start {
				chunks = chunks[:n-1] // the previous chunk is inside this one
			}
		}
		chunks = append(chunks, Chunk{Text: s[lo:hi], Start: lo})
	}
	return chunks
}

// trimmer trims spans like trimSpan, remembering the white-space runs it
// has crossed. Packing with a large overlap yields many spans over the same
// white space; with the memory, trimming a sequence of spans that move
// forward costs time linear in the text instead of in the sum of the spans.
type trimmer struct {
	s    string
	runs [2]span // known white-space-only ranges
	next int     // slot the next new run replaces
}

func (t *trimmer) trim(lo, hi int) (int, int) {
	origLo := lo
	for lo < hi {
		if r, ok := t.runAt(lo); ok {
			lo = min(r.hi, hi)
			continue
		}
		c, n := utf8.DecodeRuneInString(t.s[lo:hi])
		if !unicode.IsSpace(c) {
			break
		}
		lo += n
	}
	if lo > origLo {
		t.remember(origLo, lo)
	}
	origHi := hi
	for hi > lo {
		if r, ok := t.runAt(hi - 1); ok {
			hi = max(r.lo, lo)
			continue
		}
		c, n := utf8.DecodeLastRuneInString(t.s[lo:hi])
		if !unicode.IsSpace(c) {
			break
		}
		hi -= n
	}
	if hi < origHi {
		t.remember(hi, origHi)
	}
	return lo, hi
}

// runAt returns a known white-space run holding byte i.
func (t *trimmer) runAt(i int) (span, bool) {
	for _, r := range t.runs {
		if r.lo <= i && i < r.hi {
			return r, true
		}
	}
	return span{}, false
}

// remember records [lo, hi) as white space, merging it with a known run it
// touches.
func (t *trimmer) remember(lo, hi int) {
	for k, r := range t.runs {
		if r.lo < r.hi && lo <= r.hi && r.lo <= hi {
			t.runs[k] = span{min(lo, r.lo), max(hi, r.hi)}
			return
		}
	}
	t.runs[t.next] = span{lo, hi}
	t.next = 1 - t.next
}
