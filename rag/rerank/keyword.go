package rerank

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/scoring"
)

// KeywordWeights are the relative weights of the three components of a
// [Keyword] score. They are divided by their sum, so only their ratios
// matter and the score stays in [0, 1]. Like every weight of the
// library, a zero field means its default (0.60, 0.25, 0.15: see
// [Keyword]) and a negative one drops the component.
type KeywordWeights struct {
	// Original weighs the original retrieval score, normalized to [0, 1].
	Original float64
	// Content weighs the fraction of query terms found in the content.
	Content float64
	// Title weighs the fraction of query terms found in the title.
	Title float64
}

// defaultKeywordWeights returns the default weights: 60% original score
// (retrieval's ranking stays the main signal), 25% content overlap, 15%
// title overlap (a title is short, so its overlap is a coarser signal).
func defaultKeywordWeights() KeywordWeights {
	return KeywordWeights{Original: 0.60, Content: 0.25, Title: 0.15}
}

// resolve returns the effective weights (zero fields replaced by their
// defaults, negative ones by 0), or an error for a NaN or infinite one.
func (w KeywordWeights) resolve() (KeywordWeights, error) {
	def := defaultKeywordWeights()
	out := w
	for _, f := range []struct {
		name   string
		v, def float64
		dst    *float64
	}{{"Original", w.Original, def.Original, &out.Original}, {"Content", w.Content, def.Content, &out.Content}, {"Title", w.Title, def.Title, &out.Title}} {
		switch {
		case math.IsNaN(f.v) || math.IsInf(f.v, 0):
			return w, fmt.Errorf("%w: keyword weight %s = %v, want a finite number", ErrInvalidOptions, f.name, f.v)
		case f.v == 0:
			*f.dst = f.def
		case f.v < 0:
			*f.dst = 0
		}
	}
	return out, nil
}

// OriginalScale says how a [Keyword] reranker brings the candidates'
// original scores to [0, 1].
type OriginalScale uint8

const (
	// ScaleMinMax maps each score s to (s - min) / (max - min) over the
	// candidates of the call, so the best gets 1 and the worst 0; when
	// all scores are equal every candidate gets 1. Fits scores on any
	// scale (fused scores, RRF sums, BM25). This is the default.
	ScaleMinMax OriginalScale = iota
	// ScaleUnit takes scores as already in [0, 1] (a cosine similarity,
	// a probability) and clamps them to it. Unlike ScaleMinMax it keeps
	// absolute levels: a weak best hit stays weak.
	ScaleUnit
)

// String returns the scale's name.
func (s OriginalScale) String() string {
	switch s {
	case ScaleMinMax:
		return "min-max"
	case ScaleUnit:
		return "unit"
	}
	return "OriginalScale(" + strconv.Itoa(int(s)) + ")"
}

// KeywordOptions configure [NewKeyword]. The zero value gives the default
// weights and tokenization.
type KeywordOptions struct {
	// Weights of the components; a zero field means its default
	// (0.60, 0.25, 0.15), a negative one (-1, say) drops the
	// component. A NaN or infinite weight is invalid, and so is
	// dropping all three.
	Weights KeywordWeights
	// Scale brings original scores to [0, 1]; the zero value is
	// ScaleMinMax.
	Scale OriginalScale
	// Tokenizer extracts the query terms; nil means the default
	// lexical.Tokenizer (pt-BR and English stopwords, at most 8 tokens)
	// with lexical.StemFilter. Titles and contents are split by a copy
	// with no token cap, so both sides share one definition of a term.
	// With filters other than lexical.StemFilter every text is tokenized
	// in full, which is several times slower than the default.
	Tokenizer *lexical.Tokenizer
}

// Keyword is the offline reranker, for when no reranking model is
// configured. A candidate's score is
//
//	0.60 × original + 0.25 × content overlap + 0.15 × title overlap
//
// where original is the candidate's retrieval score brought to [0, 1]
// (min-max over the candidates by default, see [OriginalScale]), and an
// overlap is the fraction of query terms that occur in the text. Query
// terms are the query's [lexical.Tokenizer] tokens (normalized, accents
// removed, stopwords dropped, stemmed with [lexical.Stem]); a term occurs
// in a text when the text's tokens, produced the same way, include it, so
// "uvas" in the query finds "Uva" in a title and "pulgões" finds
// "pulgão". When no query token survives the stopword and length filters
// (a query such as "o que é"), the whole normalized query is the one
// term and occurs when the normalized text holds it as a phrase between
// word boundaries. The weights are configurable; see [KeywordOptions].
//
// With the default min-max scale and weights the weakest candidate of a
// call gets 0 for the original component and can reach at most 0.40, so
// [Apply]'s default MinScore of 0.5 always drops it, and a candidate
// needs some term overlap to pass unless it is near the top of the
// original ranking. When the original scores are already similarities in
// [0, 1], [ScaleUnit] keeps their absolute level instead.
//
// Keyword is immutable and safe for concurrent use.
type Keyword struct {
	weights KeywordWeights // effective, summing to 1
	scale   OriginalScale
	query   lexical.Tokenizer
	text    lexical.Tokenizer
}

var _ Reranker = (*Keyword)(nil)

// NewKeyword returns a keyword reranker. It returns [ErrInvalidOptions]
// for a NaN or infinite weight, three dropped components or an unknown
// scale.
func NewKeyword(opts KeywordOptions) (*Keyword, error) {
	w, err := opts.Weights.resolve()
	if err != nil {
		return nil, err
	}
	sum := w.Original + w.Content + w.Title
	if sum == 0 || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("%w: keyword weights sum to %v", ErrInvalidOptions, sum)
	}
	if opts.Scale > ScaleUnit {
		return nil, fmt.Errorf("%w: unknown %v", ErrInvalidOptions, opts.Scale)
	}
	k := &Keyword{
		weights: KeywordWeights{Original: w.Original / sum, Content: w.Content / sum, Title: w.Title / sum},
		scale:   opts.Scale,
	}
	if opts.Tokenizer != nil {
		k.query = *opts.Tokenizer
	} else {
		k.query = lexical.Tokenizer{Filters: []lexical.TokenFilter{lexical.StemFilter{}}}
	}
	k.text = k.query
	k.text.MaxTokens = -1
	return k, nil
}

// effectiveWeights returns the effective weights, divided by their sum.
func (k *Keyword) effectiveWeights() KeywordWeights { return k.weights }

// component is one weighted part of a [Keyword] score: raw the input (the
// original score, or the overlap fraction), v its value in [0, 1].
func component(raw, v, w float64) scoring.Component {
	return scoring.Component{Raw: raw, Normalized: v, Weight: w, Contribution: v * w}
}

// KeywordExplanation holds the components of a [Keyword] score; the score
// is the sum of the three contributions.
type KeywordExplanation struct {
	// Original: Raw is the original retrieval score, Normalized that
	// score brought to [0, 1].
	Original scoring.Component
	// Content: Raw = Normalized = the fraction of the query terms
	// (normalized and, by default, stemmed; the whole normalized query,
	// matched as a phrase, when no token survives) found in the content.
	Content scoring.Component
	// Title: Raw = Normalized = the fraction of the query terms found in
	// the title.
	Title scoring.Component
	// ContentMatched are the query terms found in the content, in query
	// order.
	ContentMatched []string
	// TitleMatched are the query terms found in the title, in query order.
	TitleMatched []string
}

// String formats the explanation as a sum, for debugging tools:
//
//	0.60×1.000 (original) + 0.25×0.500 (content: fungicida) + 0.15×1.000 (title: fungicida uva)
func (e KeywordExplanation) String() string {
	var b strings.Builder
	part := func(c scoring.Component, name string, matched []string) {
		fmt.Fprintf(&b, "%.2f×%.3f (%s", c.Weight, c.Normalized, name)
		if len(matched) > 0 {
			b.WriteString(": ")
			b.WriteString(strings.Join(matched, " "))
		}
		b.WriteString(")")
	}
	part(e.Original, "original", nil)
	b.WriteString(" + ")
	part(e.Content, "content", e.ContentMatched)
	b.WriteString(" + ")
	part(e.Title, "title", e.TitleMatched)
	return b.String()
}

// Rerank scores every candidate and returns one result per candidate,
// best first, equal scores by index. It returns [ErrEmptyQuery] when the
// query normalizes to nothing and ctx's error when ctx is done.
func (k *Keyword) Rerank(ctx context.Context, query string, cands []Candidate) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	terms, phrase := k.query.Analyze(query)
	if len(terms) == 0 {
		return nil, ErrEmptyQuery
	}
	if len(cands) == 0 {
		return nil, nil
	}
	scale := k.originals(cands)
	m := newMatcher(terms, phrase, k.text)
	out := make([]Result, len(cands))
	for i, c := range cands {
		if i&255 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("rerank: %w", err)
			}
		}
		contentHit, contentMatched := m.match(c.Content)
		titleHit, titleMatched := m.match(c.Title)
		e := &KeywordExplanation{
			Original:       component(c.Score, scale(c.Score), k.weights.Original),
			Content:        component(contentHit, contentHit, k.weights.Content),
			Title:          component(titleHit, titleHit, k.weights.Title),
			ContentMatched: contentMatched,
			TitleMatched:   titleMatched,
		}
		score := min(1, max(0, e.Original.Contribution+e.Content.Contribution+e.Title.Contribution))
		out[i] = Result{
			ID:          c.ID,
			Index:       i,
			Score:       score,
			Original:    c.Score,
			Explanation: Explanation{Method: MethodKeyword, Raw: score, Keyword: e},
		}
	}
	sortResults(out)
	return out, nil
}

// originals returns the function that brings an original score to
// [0, 1]. NaN maps to 0; under min-max +Inf maps to 1 and -Inf to 0, and
// the finite range alone sets min and max.
func (k *Keyword) originals(cands []Candidate) func(float64) float64 {
	if k.scale == ScaleUnit {
		return func(s float64) float64 {
			if math.IsNaN(s) {
				return 0
			}
			return min(1, max(0, s))
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cands {
		if !math.IsNaN(c.Score) && !math.IsInf(c.Score, 0) {
			lo, hi = min(lo, c.Score), max(hi, c.Score)
		}
	}
	return func(s float64) float64 {
		switch {
		case math.IsNaN(s) || math.IsInf(s, -1):
			return 0
		case math.IsInf(s, 1) || !(hi > lo):
			return 1
		}
		// Halves keep the differences finite across the whole float range.
		return min(1, max(0, (s/2-lo/2)/(hi/2-lo/2)))
	}
}

// matcher finds query terms in texts.
type matcher struct {
	terms  []string
	phrase bool
	index  map[string]int // term → position, for long term lists
	tok    lexical.Tokenizer
	// local reports that the tokenizer's filters only stem, so a text's
	// tokens can be found field by field; see matchFields.
	local bool
}

func newMatcher(terms []string, phrase bool, tok lexical.Tokenizer) *matcher {
	m := &matcher{terms: terms, phrase: phrase, tok: tok, local: onlyStemFilters(tok)}
	if len(terms) > 16 {
		m.index = make(map[string]int, len(terms))
		for i, t := range terms {
			m.index[t] = i
		}
	}
	return m
}

// match returns the fraction of terms found in text and the terms found,
// in query order (nil when none).
func (m *matcher) match(text string) (float64, []string) {
	norm := lexical.Normalize(text)
	if norm == "" {
		return 0, nil
	}
	if m.phrase {
		if containsPhrase(norm, m.terms[0]) {
			return 1, m.terms[:1:1]
		}
		return 0, nil
	}
	var small [16]bool
	found := small[:0]
	if len(m.terms) <= len(small) {
		found = small[:len(m.terms)]
	} else {
		found = make([]bool, len(m.terms))
	}
	var n int
	if m.local {
		n = m.matchFields(norm, found)
	} else {
		n = m.matchAll(norm, found)
	}
	if n == 0 {
		return 0, nil
	}
	matched := make([]string, 0, n)
	for j, ok := range found {
		if ok {
			matched = append(matched, m.terms[j])
		}
	}
	return float64(n) / float64(len(m.terms)), matched
}

// matchAll tokenizes the whole normalized text (Normalize is idempotent
// and returns normalized ASCII as is, so the tokenizer's own pass is
// cheap), marks the terms found and returns how many. A text none of
// whose words survive the filters has no tokens: the tokenizer's
// fallback (the whole text) is not a token of the text.
func (m *matcher) matchAll(norm string, found []bool) int {
	toks, fallback := m.tok.Analyze(norm)
	if fallback {
		return 0
	}
	n := 0
	for _, tok := range toks {
		n += m.mark(tok, found)
		if n == len(m.terms) {
			break
		}
	}
	return n
}

// matchFields gives matchAll's answer while tokenizing only the fields
// (space-separated runs of the normalized text) that hold a term as a
// substring. It relies on three facts: a token never spans a space (the
// splitter joins only across hyphens and digit separators), so the
// tokens of a text are the tokens of its fields; the splitter emits
// substrings of the text and Stem returns a prefix of its input, so a
// term equal to a token occurs in that token's field; and a field is
// tokenized like the whole text. Fallback tokens are ignored on both
// paths.
func (m *matcher) matchFields(norm string, found []bool) int {
	n := 0
	for j, t := range m.terms {
		for from := 0; !found[j] && from < len(norm); {
			i := strings.Index(norm[from:], t)
			if i < 0 {
				break
			}
			i += from
			start := strings.LastIndexByte(norm[:i], ' ') + 1
			end := len(norm)
			if k := strings.IndexByte(norm[i:], ' '); k >= 0 {
				end = i + k
			}
			if toks, fallback := m.tok.Analyze(norm[start:end]); !fallback {
				for _, tok := range toks {
					n += m.mark(tok, found)
				}
			}
			from = end
		}
		if n == len(m.terms) {
			break
		}
	}
	return n
}

// mark sets found for tok's term and reports 1 when it was not set yet.
func (m *matcher) mark(tok string, found []bool) int {
	if j := m.find(tok); j >= 0 && !found[j] {
		found[j] = true
		return 1
	}
	return 0
}

// onlyStemFilters reports whether tok's filters only stem, token by
// token, so that matchFields applies.
func onlyStemFilters(tok lexical.Tokenizer) bool {
	for _, f := range tok.Filters {
		switch f.(type) {
		case nil, lexical.StemFilter, *lexical.StemFilter:
		default:
			return false
		}
	}
	return true
}

func (m *matcher) find(tok string) int {
	if m.index != nil {
		if j, ok := m.index[tok]; ok {
			return j
		}
		return -1
	}
	for j, t := range m.terms {
		if t == tok {
			return j
		}
	}
	return -1
}

// containsPhrase reports whether phrase occurs in text with a word
// boundary (start, end, or a rune that is not a letter or digit) on each
// side. Both must be in lexical.Normalize form.
func containsPhrase(text, phrase string) bool {
	if phrase == "" {
		return false
	}
	for i := 0; i+len(phrase) <= len(text); {
		j := strings.Index(text[i:], phrase)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(phrase)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !isWord(before)) && (end == len(text) || !isWord(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		i = start + size
	}
	return false
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
