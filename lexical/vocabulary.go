package lexical

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// VocabularyBuilder collects the words of a collection, one document at a
// time, for a [Vocabulary]. The zero value is ready to use. It is not safe
// for concurrent use.
type VocabularyBuilder struct {
	docs       int
	fieldWords map[string]int64
	df         map[string]int32
	seen       map[string]struct{}
}

// Add adds one document: the distinct words of its text (normalized with
// [Normalize]; split on every rune that is not a letter, digit or mark, so
// "cana-de-açúcar" gives "cana", "de", "acucar") count once each.
func (b *VocabularyBuilder) Add(text string) {
	b.begin()
	b.addText(Normalize(text))
}

// AddRecord adds one document made of the fields of rec, as Add does with
// their texts joined, and also counts the words of each field by name for
// [Vocabulary.AvgFieldWordsAll] (the field lengths of [BM25]).
func (b *VocabularyBuilder) AddRecord(rec Record) {
	b.begin()
	if b.fieldWords == nil {
		b.fieldWords = make(map[string]int64)
	}
	for i, n := 0, rec.NumFields(); i < n; i++ {
		f := rec.Field(i)
		w := b.addText(Normalize(f.Text))
		if f.Name == "" {
			continue
		}
		if _, ok := b.fieldWords[f.Name]; !ok {
			b.fieldWords[strings.Clone(f.Name)] = 0
		}
		b.fieldWords[f.Name] += int64(w)
	}
}

// begin starts a new document.
func (b *VocabularyBuilder) begin() {
	if b.df == nil {
		b.df = make(map[string]int32)
		b.seen = make(map[string]struct{})
	}
	b.docs++
	clear(b.seen)
}

// addText adds the words of normalized text to the current document and
// returns how many it had.
func (b *VocabularyBuilder) addText(text string) int {
	n := 0
	for i := 0; i < len(text); {
		start, end := nextWord(text, i)
		if start < 0 {
			break
		}
		i = end
		n++
		w := text[start:end]
		if _, ok := b.seen[w]; ok {
			continue
		}
		b.seen[w] = struct{}{}
		if c, ok := b.df[w]; ok {
			b.df[w] = c + 1
		} else {
			b.df[strings.Clone(w)] = 1
		}
	}
	return n
}

// Build returns the Vocabulary of the documents added so far. The builder
// may be used again afterwards; later documents do not change the result.
func (b *VocabularyBuilder) Build() *Vocabulary {
	v := &Vocabulary{docs: b.docs, words: make([]string, 0, len(b.df))}
	if len(b.fieldWords) > 0 {
		v.fieldWords = make(map[string]int64, len(b.fieldWords))
		for k, n := range b.fieldWords {
			v.fieldWords[k] = n
		}
	}
	for w := range b.df {
		v.words = append(v.words, w)
	}
	slices.Sort(v.words)
	v.df = make([]int32, len(v.words))
	v.byLen = make(map[int][]int32)
	for i, w := range v.words {
		v.df[i] = b.df[w]
		if n := utf8.RuneCountInString(w); n >= minSoundTarget && isLowerASCII(w) {
			v.byLen[n] = append(v.byLen[n], int32(i))
		}
	}
	return v
}

// newVocabulary returns the Vocabulary of docs, one text per document.
func newVocabulary(docs []string) *Vocabulary {
	var b VocabularyBuilder
	for _, d := range docs {
		b.Add(d)
	}
	return b.Build()
}

// minCorrectTarget is the shortest word a token is corrected to by an
// edit, minSoundTarget by its sound ("huva" → "uva").
const (
	minCorrectTarget = 4
	minSoundTarget   = 3
)

// Vocabulary holds the words of a collection and their document
// frequencies. It answers two questions of query analysis: how rare a
// query term is ([Vocabulary.IDF], for [Scorer.WithIDF]) and which
// indexed word a misspelled query token was meant to be
// ([Vocabulary.Correct]). Both read terms with the prefix semantics of a
// stemmed query token: a term occurs in a document holding a word that
// starts with it ("fungicid" occurs wherever "fungicida" or "fungicidas"
// does).
//
// A Vocabulary is immutable and safe for concurrent use; results of
// Correct are cached (at most a few thousand entries).
type Vocabulary struct {
	docs int
	// fieldWords are the words of each field over all documents added
	// with AddRecord.
	fieldWords map[string]int64
	words      []string // sorted
	df         []int32  // document frequency of words[i]
	byLen      map[int][]int32

	mu    sync.Mutex
	cache map[string]correction

	// sounds maps a phonetic key (soundKey) to the most frequent word
	// of byLen with that key, built on first use.
	soundsOnce sync.Once
	sounds     map[string]int32
}

type correction struct {
	word string
	ok   bool
}

// Docs returns the number of documents.
func (v *Vocabulary) Docs() int {
	if v == nil {
		return 0
	}
	return v.docs
}

// avgFieldWords returns the mean number of words of the named field per
// document, over the documents added with [VocabularyBuilder.AddRecord]
// (a document without the field counts as 0 words): the AvgLengths of
// [BM25]. It is 0 for a field never seen.
func (v *Vocabulary) avgFieldWords(field string) float64 {
	if v == nil || v.docs == 0 {
		return 0
	}
	return float64(v.fieldWords[field]) / float64(v.docs)
}

// AvgFieldWordsAll returns the mean number of words of every field seen, by name (a
// new map), ready for [Scorer.WithAverageLengths].
func (v *Vocabulary) AvgFieldWordsAll() map[string]float64 {
	if v == nil || v.docs == 0 || len(v.fieldWords) == 0 {
		return nil
	}
	out := make(map[string]float64, len(v.fieldWords))
	for k, n := range v.fieldWords {
		out[k] = float64(n) / float64(v.docs)
	}
	return out
}

// Len returns the number of distinct words.
func (v *Vocabulary) Len() int {
	if v == nil {
		return 0
	}
	return len(v.words)
}

// prefixRange returns the range of words starting with p.
func (v *Vocabulary) prefixRange(p string) (lo, hi int) {
	lo, _ = slices.BinarySearch(v.words, p)
	hi = lo
	for hi < len(v.words) && strings.HasPrefix(v.words[hi], p) {
		hi++
	}
	return lo, hi
}

// Known reports whether some word of the vocabulary starts with the
// normalized token.
func (v *Vocabulary) Known(token string) bool {
	if v == nil {
		return false
	}
	lo, hi := v.prefixRange(Normalize(token))
	return hi > lo
}

// DocFreq returns the number of documents in which term occurs: for a
// one-word term, the documents holding a word that starts with it (the
// sum of the words' frequencies, at most Docs(): a document holding two
// such words is counted twice, which changes an IDF little); for a term
// of several words ("ferrugem asiatica", "cana-de-acucar") the least
// frequent of its words of two or more letters.
func (v *Vocabulary) DocFreq(term string) int {
	if v == nil {
		return 0
	}
	term = Normalize(term)
	df, words := -1, 0
	for i := 0; i < len(term); {
		start, end := nextWord(term, i)
		if start < 0 {
			break
		}
		i = end
		w := term[start:end]
		if len(w) < 2 && words > 0 {
			continue
		}
		words++
		n := 0
		lo, hi := v.prefixRange(w)
		for j := lo; j < hi && n < v.docs; j++ {
			n += int(v.df[j])
		}
		n = min(n, v.docs)
		if df < 0 || n < df {
			df = n
		}
	}
	return max(df, 0)
}

// IDF returns the BM25 inverse document frequency of term,
// ln(1 + (N − df + 0.5) / (df + 0.5)) with N = Docs() and df =
// DocFreq(term): about ln(2N) for a term found nowhere, ln 2 for a term in
// half the documents, near 0 for a term in all of them.
func (v *Vocabulary) IDF(term string) float64 {
	n := float64(v.Docs())
	df := float64(v.DocFreq(term))
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// IDFOptions shape [Vocabulary.IDFWeights].
type IDFOptions struct {
	// Reference is the document fraction whose terms weigh 1: rarer terms
	// weigh more, commoner ones less (default 0.1, a term in one document
	// of ten).
	Reference float64
	// Floor and Cap bound the weight (defaults 0.1 and 3), so that a term
	// found everywhere still counts a little and a rare one cannot drown
	// the rest of the score.
	Floor, Cap float64
}

// Defaults of IDFOptions.
const (
	defaultIDFReference = 0.1
	defaultIDFFloor     = 0.1
	defaultIDFCap       = 3
)

// IDFWeights returns a term weight function for [Scorer.WithIDF]:
// IDF(term) / IDF of a term in Reference × Docs() documents, clamped to
// [Floor, Cap]. A nil or empty Vocabulary weighs every term 1.
func (v *Vocabulary) IDFWeights(opts IDFOptions) func(term string) float64 {
	if v.Docs() == 0 {
		return func(string) float64 { return 1 }
	}
	ref := opts.Reference
	if !(ref > 0 && ref < 1) {
		ref = defaultIDFReference
	}
	floor, capw := opts.Floor, opts.Cap
	if !(floor > 0) || math.IsInf(floor, 0) {
		floor = defaultIDFFloor
	}
	if !(capw >= floor) || math.IsInf(capw, 0) {
		capw = max(defaultIDFCap, floor)
	}
	n := float64(v.docs)
	refDF := max(ref*n, 1)
	base := math.Log(1 + (n-refDF+0.5)/(refDF+0.5))
	if base <= 0 {
		return func(string) float64 { return 1 }
	}
	return func(term string) float64 {
		return min(max(v.IDF(term)/base, floor), capw)
	}
}

// Correction limits: tokens shorter than minSoundLength runes are never
// corrected, and those shorter than minCorrectLength only to a word that
// sounds the same ("huva" → "uva", "bixo" → "bicho"); from longTokenLength
// runes on, two edits are allowed instead of one.
const (
	minCorrectLength = 5
	minSoundLength   = 4
	longTokenLength  = 8
)

// maxCorrectionCache bounds the cache of Correct results.
const maxCorrectionCache = 4096

// Correct returns the indexed word a misspelled query token most likely
// stands for. A token is left alone (ok false) when it is shorter than
// 4 runes, holds anything but the letters a-z after [Normalize], or is
// known (some word starts with it); a token of 4 runes is corrected only
// to a word that sounds the same ("huva" → "uva"). A word found in at least minDF
// documents that sounds the same in Brazilian Portuguese (the token is
// spelled as it sounds: "ferujem" for "ferrugem", "cartuxo" for
// "cartucho"; the most frequent such word; for a plural none sounds like
// whose singular is no indexed word, the word its singular sounds like:
// "huvas" → "uva") wins. Otherwise the candidates
// are the words within one edit (two from 8 runes on; an edit is an insertion, deletion, substitution or
// transposition of adjacent letters) found in at least minDF documents;
// the closest wins, then the most frequent, then the first in
// alphabetical order. A word the token merely extends ("mata" for
// "matar") is no candidate: such pairs are inflections, not typos. "fungisida" → "fungicida", "insetisida" →
// "inseticida", "aglodao" → "algodao".
func (v *Vocabulary) Correct(token string, minDF int) (string, bool) {
	if v == nil || len(v.words) == 0 {
		return "", false
	}
	t := Normalize(token)
	n := len(t)
	if n < minSoundLength || !isLowerASCII(t) || v.Known(t) {
		return "", false
	}
	key := t + "\x00" + string(rune('0'+min(max(minDF, 0), 9)))
	v.mu.Lock()
	c, hit := v.cache[key]
	v.mu.Unlock()
	if hit {
		return c.word, c.ok
	}
	maxDist := 1
	if n >= longTokenLength {
		maxDist = 2
	}
	best, bestDist, bestDF := "", maxDist+1, int32(0)
	wi, ok := v.soundsLike(t)
	if !ok && n > minSoundLength && t[n-1] == 's' {
		// A plural spelled as it sounds ("huvas"): its singular's word,
		// unless the singular is itself an indexed word ("diquavales" is
		// Diquavale's plural, not the Dicavale it sounds like).
		if _, found := slices.BinarySearch(v.words, t[:n-1]); !found {
			wi, ok = v.soundsLike(t[:n-1])
		}
	}
	if ok && int(v.df[wi]) >= minDF && !strings.HasPrefix(t, v.words[wi]) {
		// Spelled as it sounds ("ferujem", "cartuxo"): the word that
		// sounds the same wins over any merely close one.
		best, bestDist = v.words[wi], 0
		maxDist = -1
	}
	if n < minCorrectLength {
		maxDist = -1 // a short token only as it sounds
	}
	for l := max(n-maxDist, minCorrectTarget); l <= n+maxDist; l++ {
		for _, wi := range v.byLen[l] {
			df := v.df[wi]
			if int(df) < minDF {
				continue
			}
			w := v.words[wi]
			if strings.HasPrefix(t, w) {
				continue // an inflection ("matar" of "mata"), not a typo
			}
			d := editDistance(t, w, min(bestDist, maxDist))
			if d > maxDist {
				continue
			}
			if d < bestDist || (d == bestDist && (df > bestDF || (df == bestDF && w < best))) {
				best, bestDist, bestDF = w, d, df
			}
		}
	}
	c = correction{word: best, ok: best != ""}
	v.mu.Lock()
	if v.cache == nil || len(v.cache) >= maxCorrectionCache {
		v.cache = make(map[string]correction)
	}
	v.cache[key] = c
	v.mu.Unlock()
	return c.word, c.ok
}

// soundsLike returns the index of the most frequent correctable word
// that sounds like t (same soundKey, different spelling).
func (v *Vocabulary) soundsLike(t string) (int32, bool) {
	v.soundsOnce.Do(func() {
		v.sounds = make(map[string]int32)
		for _, idx := range v.byLen {
			for _, wi := range idx {
				k := soundKey(v.words[wi])
				if old, ok := v.sounds[k]; !ok || v.df[wi] > v.df[old] || (v.df[wi] == v.df[old] && v.words[wi] < v.words[old]) {
					v.sounds[k] = wi
				}
			}
		}
	})
	wi, ok := v.sounds[soundKey(t)]
	if !ok || v.words[wi] == t {
		return 0, false
	}
	return wi, true
}

// soundKey is a Brazilian Portuguese phonetic key of a normalized
// lower-case ASCII word: spellings of one sound are folded (ch and x;
// ss, sc and c before e/i, ç, z and s; g before e/i and j; qu and c
// before a/o/u and k; rr and r; lh and li; nh and ni; ph and f; w and v;
// y and i; a silent h), doubled letters are single, and a final u is o.
// Words a customer spells as they sound share the key of the word they
// mean: "ferujem" and "ferrugem", "cartuxo" and "cartucho", "insetisida"
// and "inseticida".
func soundKey(w string) string {
	b := make([]byte, 0, len(w))
	for i := 0; i < len(w); i++ {
		c := w[i]
		var next byte
		if i+1 < len(w) {
			next = w[i+1]
		}
		front := next == 'e' || next == 'i'
		switch {
		case c == 'c' && next == 'h':
			c = 'x'
			i++
		case (c == 'l' || c == 'n') && next == 'h':
			b = append(b, c)
			c = 'i'
			i++
		case c == 'p' && next == 'h':
			c = 'f'
			i++
		case c == 'q' && next == 'u':
			c = 'k'
			i++
		case c == 'g' && next == 'u' && i+2 < len(w) && (w[i+2] == 'e' || w[i+2] == 'i'):
			i++
		case c == 's' && next == 'c' && i+2 < len(w) && (w[i+2] == 'e' || w[i+2] == 'i'):
			c = 's'
			i++
		case c == 'c' && front, c == 'z':
			c = 's'
		case c == 'c', c == 'q':
			c = 'k'
		case c == 'g' && front:
			c = 'j'
		case c == 'w':
			c = 'v'
		case c == 'y':
			c = 'i'
		case c == 'h':
			continue
		}
		if n := len(b); n > 0 && b[n-1] == c {
			continue
		}
		b = append(b, c)
	}
	if n := len(b); n > 1 && b[n-1] == 'u' {
		b[n-1] = 'o'
	}
	return string(b)
}

// editDistance returns the optimal string alignment distance of the ASCII
// strings a and b (Levenshtein plus transpositions of adjacent letters),
// or limit+1 as soon as it must exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	if a == b {
		return 0
	}
	var buf [3][64]int
	if len(b)+1 > len(buf[0]) {
		return limit + 1
	}
	prev2, prev, cur := buf[0][:len(b)+1], buf[1][:len(b)+1], buf[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// WithIDF returns a copy of s whose query terms are weighted by idf: a
// term's field weights and its Match bonus are multiplied by idf(term).
// idf is called once per term by Prepare, never while scoring; a negative
// or non-finite result counts as 0. nil restores weight 1 for every term.
// s is not modified.
func (s *Scorer) WithIDF(idf func(term string) float64) *Scorer {
	c := *s
	c.idf = idf
	return &c
}

// IDF returns the Scorer's term weight function, or nil.
func (s *Scorer) IDF() func(term string) float64 { return s.idf }

// Correction is a query word replaced by [Vocabulary.CorrectText].
type Correction struct {
	// From is the word as typed (normalized), To the indexed word.
	From string `json:"from"`
	To   string `json:"to"`
}

// CorrectText corrects the words of text with [Vocabulary.Correct]: each
// word for which keep returns false (keep receives the normalized word;
// nil keeps none) and that Correct changes is replaced in text by its
// correction; the rest of text is kept as written. It returns text
// unchanged and no corrections when nothing was corrected.
func (v *Vocabulary) CorrectText(text string, minDF int, keep func(word string) bool) (string, []Correction) {
	if v.Len() == 0 {
		return text, nil
	}
	var (
		b    strings.Builder
		last int
		out  []Correction
	)
	for i := 0; i < len(text); {
		start, end := nextWord(text, i)
		if start < 0 {
			break
		}
		i = end
		if end-start < minSoundLength {
			continue
		}
		w := Normalize(text[start:end])
		if keep != nil && keep(w) {
			continue
		}
		to, ok := v.Correct(w, minDF)
		if !ok {
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString(to)
		last = end
		out = append(out, Correction{From: w, To: to})
	}
	if len(out) == 0 {
		return text, nil
	}
	b.WriteString(text[last:])
	return b.String(), out
}
