package lexical

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults of a zero [Tokenizer]: single letters are dropped, since under
// substring matching they occur in nearly every text, and a query keeps
// at most 8 tokens: a search names a few words, and each further word of a
// long question adds more noise (and a store probe) than signal.
const (
	// defaultMinLength is the minimum token length, in runes.
	defaultMinLength = 2
	// defaultMaxTokens is the maximum number of tokens kept from a query.
	defaultMaxTokens = 8
)

// TokenFilter transforms a token stream: it may drop, rewrite or add
// tokens. Filter may reuse the backing array of tokens for its result.
// Filters are chained by a [Tokenizer]; implementations must be safe for
// concurrent use when the Tokenizer is shared.
type TokenFilter interface {
	Filter(tokens []string) []string
}

// TokenFilterFunc adapts a function to the [TokenFilter] interface.
type TokenFilterFunc func(tokens []string) []string

// Filter calls f(tokens).
func (f TokenFilterFunc) Filter(tokens []string) []string { return f(tokens) }

// CompoundMode says what a [Tokenizer] emits for a hyphenated compound of
// letters such as "cana-de-açúcar" or "mosca-branca".
type CompoundMode uint8

const (
	// CompoundsAndParts emits the whole compound first, then each part
	// that survives the stopword and length filters:
	// "cana-de-açúcar" → "cana-de-acucar", "cana", "acucar". The parts give
	// recall ("cana" finds "cana-de-açúcar" and "canavial"), the compound
	// adds precision, so a record holding the exact compound earns more
	// than one holding the parts scattered. This is the default.
	CompoundsAndParts CompoundMode = iota
	// CompoundsOnly emits the compound alone: "cana-de-acucar".
	CompoundsOnly
	// PartsOnly emits the parts alone: "cana", "acucar".
	PartsOnly
)

// String returns the mode's name.
func (m CompoundMode) String() string {
	switch m {
	case CompoundsAndParts:
		return "compounds+parts"
	case CompoundsOnly:
		return "compounds"
	case PartsOnly:
		return "parts"
	}
	return "CompoundMode(" + strconv.Itoa(int(m)) + ")"
}

// Tokenizer turns text into search tokens, shaped like a bleve analyzer without its global registry: a fixed
// splitter followed by a chain of [TokenFilter]s. The zero value uses the
// defaults: minimum length 2, at most 8 tokens, the embedded pt-BR and
// English stopwords, compounds and their parts, no stemming. Single letters
// are dropped since under substring matching they occur in nearly every
// text; a query keeps at most 8 tokens since a search names a few words and
// each further word of a long question adds more noise (and a store probe)
// than signal.
//
// The pipeline, in order:
//
//  1. [Normalize] the text (lower case, no accents, single spaces).
//  2. Split on every rune that is not a letter, digit or mark, except that
//     a hyphen between two letters or digits joins a compound
//     ("cana-de-acucar", "mosca-branca") and a comma or period between two
//     digits joins a number ("2,4", "0.5"). A compound that holds a digit
//     is one token and is never split: "2,4-D" → "2,4-d" and the NPK
//     formula "10-10-10" stay findable. A compound of letters yields what
//     Compounds says.
//  3. Drop tokens shorter than MinLength runes and stopwords (a compound is
//     never a stopword; its parts may be).
//  4. Run Filters in order (for example [StemFilter]).
//  5. Drop empty tokens and duplicates, keeping the first occurrence.
//  6. Keep the first MaxTokens tokens.
//  7. If nothing survived, fall back to the whole normalized text as the
//     only token (when it is not empty).
//
// A Tokenizer is a value; it is safe for concurrent use when its Filters
// are.
type Tokenizer struct {
	// MinLength is the minimum token length in runes; 0 means
	// 2 and a negative value keeps every token.
	MinLength int
	// MaxTokens caps the number of tokens; 0 means 8
	// and a negative value means no cap.
	MaxTokens int
	// Stopwords are dropped; nil means DefaultStopwords(). Use
	// NewStopwordSet() for none.
	Stopwords *StopwordSet
	// Compounds says what a hyphenated compound of letters yields.
	Compounds CompoundMode
	// Filters run after the stopword and length filters, before dedupe
	// and the cap.
	Filters []TokenFilter
}

// Tokens returns the search tokens of s with the default [Tokenizer]:
// normalized, split, without stopwords or tokens shorter than 2 runes,
// deduplicated, at most 8, falling back to the whole normalized text when
// no token survives. The result is nil only when s normalizes to "".
func Tokens(s string) []string {
	return Tokenizer{}.Tokens(s)
}

// Tokens returns the search tokens of s; see [Tokenizer] for the pipeline.
func (t Tokenizer) Tokens(s string) []string {
	tokens, _ := t.Analyze(s)
	return tokens
}

// Analyze is Tokens that also reports whether the result is the fallback
// (the whole normalized text, because no token survived).
func (t Tokenizer) Analyze(s string) (tokens []string, fallback bool) {
	norm := Normalize(s)
	if norm == "" {
		return nil, false
	}
	tokens = t.split(norm, make([]string, 0, 8))
	for _, f := range t.Filters {
		if f != nil {
			tokens = f.Filter(tokens)
		}
	}
	tokens = dedupe(tokens)
	if max := t.maxTokens(); max > 0 && len(tokens) > max {
		tokens = tokens[:max:max]
	}
	if len(tokens) == 0 {
		return []string{norm}, true
	}
	return tokens, false
}

func (t Tokenizer) minLength() int {
	switch {
	case t.MinLength == 0:
		return defaultMinLength
	case t.MinLength < 0:
		return 1
	}
	return t.MinLength
}

func (t Tokenizer) maxTokens() int {
	switch {
	case t.MaxTokens == 0:
		return defaultMaxTokens
	case t.MaxTokens < 0:
		return 0
	}
	return t.MaxTokens
}

func (t Tokenizer) stopwords() *StopwordSet {
	if t.Stopwords == nil {
		return DefaultStopwords()
	}
	return t.Stopwords
}

// split appends to dst the tokens of the normalized text s that pass the
// length and stopword filters.
func (t Tokenizer) split(s string, dst []string) []string {
	minLen := t.minLength()
	stop := t.stopwords()
	keep := func(tok string, compound bool) bool {
		if runeCount(tok) < minLen {
			return false
		}
		return compound || !stop.Contains(tok)
	}
	for i := 0; i < len(s); {
		start, end, joined := nextChunk(s, i)
		if start < 0 {
			break
		}
		i = end
		chunk := s[start:end]
		if !joined || hasDigit(chunk) || !strings.Contains(chunk, "-") {
			if keep(chunk, joined) {
				dst = append(dst, chunk)
			}
			continue
		}
		if t.Compounds != PartsOnly && keep(chunk, true) {
			dst = append(dst, chunk)
		}
		if t.Compounds == CompoundsOnly {
			continue
		}
		for part := range strings.SplitSeq(chunk, "-") {
			if keep(part, false) {
				dst = append(dst, part)
			}
		}
	}
	return dst
}

// nextChunk finds the next run of word runes in s at or after i, extended
// across joiners (a hyphen between word runes, a comma or period between
// digits). It returns start < 0 when there is none; joined reports whether
// the run holds a joiner.
func nextChunk(s string, i int) (start, end int, joined bool) {
	start = -1
	prevDigit := false
	for i < len(s) {
		r, size := decodeRune(s, i)
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			prevDigit = isDigitRune(r)
			i += size
			continue
		}
		if start >= 0 && (r == '-' || ((r == ',' || r == '.') && prevDigit)) && i+size < len(s) {
			next, _ := decodeRune(s, i+size)
			if isWordRune(next) && (r == '-' || isDigitRune(next)) {
				joined = true
				i += size
				continue
			}
		}
		if start >= 0 {
			return start, i, joined
		}
		i += size
	}
	if start < 0 {
		return -1, len(s), false
	}
	return start, len(s), joined
}

// nextWord finds the next run of word runes in s at or after i: hyphens
// and all punctuation separate words here. It returns start < 0 when
// there is none.
func nextWord(s string, i int) (start, end int) {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiWord[c] {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) {
			break
		}
		i += size
	}
	if i >= len(s) {
		return -1, len(s)
	}
	return i, wordEnd(s, i)
}

// isWordStart reports whether position i of s starts a word: the rune
// before it, if any, is not a word rune.
func isWordStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isWordRune(r)
}

// wordEnd returns the end of the word that starts at i.
func wordEnd(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			return i
		}
		i += size
	}
	return len(s)
}

// asciiWord marks the ASCII bytes that are word runes.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z'
	}
	return t
}()

func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// isWordRune reports whether r belongs to a word: a letter, a number or a
// combining mark.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

func isDigitRune(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}

func hasDigit(s string) bool {
	for _, r := range s {
		if isDigitRune(r) {
			return true
		}
	}
	return false
}

func runeCount(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.RuneCountInString(s)
		}
	}
	return len(s)
}

// dedupe drops empty tokens and repeated ones in place, keeping the first
// occurrence of each.
func dedupe(tokens []string) []string {
	out := tokens[:0]
	if len(tokens) > 32 {
		seen := make(map[string]struct{}, len(tokens))
		for _, tok := range tokens {
			if _, dup := seen[tok]; dup || tok == "" {
				continue
			}
			seen[tok] = struct{}{}
			out = append(out, tok)
		}
		return out
	}
	for _, tok := range tokens {
		if tok == "" {
			continue
		}
		dup := false
		for _, seen := range out {
			if seen == tok {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, tok)
		}
	}
	return out
}
