// Package textutil holds the small text helpers the rag packages share:
// white space, rune-safe truncation, Markdown stripping and word splitting.
package textutil

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/lexical"
)

// StripMarkdown returns s as plain text: headings lose their #, emphasis
// its * and _, links keep their text, inline code its content, list
// bullets and block quotes their markers, and table separator rows go.
// Line breaks are kept.
func StripMarkdown(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			continue
		case strings.Contains(t, "---") && MDTableSep.MatchString(t):
			continue
		case strings.HasPrefix(t, "#"):
			t = strings.TrimSpace(strings.TrimLeft(t, "#"))
		case strings.HasPrefix(t, ">"):
			t = strings.TrimSpace(strings.TrimLeft(t, ">"))
		}
		// Each pattern runs only on a line holding its marker: most lines
		// of a leaflet hold none, and the regexps dominated the offline
		// answerer's quoting of whole documents.
		if t != "" && (strings.IndexByte("-*+", t[0]) >= 0 || t[0] >= '0' && t[0] <= '9') {
			t = mdBullet.ReplaceAllString(t, "")
		}
		if strings.IndexByte(t, '[') >= 0 {
			t = mdLink.ReplaceAllString(t, "$1")
		}
		if strings.IndexByte(t, '`') >= 0 {
			t = mdCode.ReplaceAllString(t, "$1")
		}
		if strings.IndexAny(t, "*_") >= 0 {
			t = mdEmph.ReplaceAllString(t, "$1$3$5")
		}
		out = append(out, t)
	}
	return strings.Join(out, "\n")
}

var (
	// MDTableSep matches a Markdown table separator row.
	MDTableSep = regexp.MustCompile(`^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$`)
	mdBullet   = regexp.MustCompile(`^([-*+]|\d+[.)])\s+`)
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdCode     = regexp.MustCompile("`([^`]*)`")
	// Emphasis: the delimiters hug the text (no space inside) and do not
	// sit inside a word, so snake_case and "2 * 3" are left alone.
	mdEmph = regexp.MustCompile(`(^|[^\pL\pN_*])(\*\*|__|\*|_)([^\s*_](?:[^*_\n]*?[^\s*_])?)(\*\*|__|\*|_)($|[^\pL\pN_*])`)
)

// NormWords splits text into its normalized words (letters and digits).
func NormWords(text string) []string {
	return strings.FieldsFunc(lexical.Normalize(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// PaddedWords is text's normalized words (NormWords) joined by single
// spaces, with a space before and after, so a phrase is found whole by
// strings.Contains(PaddedWords(text), " "+phrase+" ").
func PaddedWords(text string) string {
	return " " + strings.Join(NormWords(text), " ") + " "
}

// OneLine collapses white space so a record cannot break the "||" layout.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// TruncateRunes cuts s to at most n characters, trimming space at the cut.
func TruncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return strings.TrimSpace(s[:j])
		}
		i++
	}
	return s
}

// IsBlank reports text with nothing to search or answer: only white
// space, control characters (NUL included) and invisible format
// characters (zero-width spaces).
func IsBlank(text string) bool {
	for _, r := range text {
		if !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// Filter returns what the token filters (a scorer's stemmer) make of the
// word w: usually one token, none when a filter drops it. Nil filters are
// skipped.
func Filter(w string, filters []lexical.TokenFilter) []string {
	out := []string{w}
	for _, f := range filters {
		if f != nil {
			out = f.Filter(out)
		}
	}
	return out
}

// FrameSet folds frame words for lookup: each word, its light stem and
// what filters make of it (the Snowball stems of FAQ and document
// tokens).
func FrameSet(words []string, filters ...lexical.TokenFilter) map[string]bool {
	m := make(map[string]bool, 3*len(words))
	for _, w := range words {
		n := lexical.Normalize(w)
		m[n] = true
		m[lexical.Stem(n)] = true
		for _, t := range Filter(n, filters) {
			m[t] = true
		}
	}
	return m
}

// NoPriceText is what FormatPrice prints for an item without a price.
const NoPriceText = "preço indisponível"

// FormatPrice writes a price the Brazilian way ("R$ 1.234,56"), or
// NoPriceText when p is nil.
func FormatPrice(p *float64) string {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return NoPriceText
	}
	cents := int64(math.Round(*p * 100))
	neg := cents < 0
	if neg {
		cents = -cents
	}
	intPart := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	s := fmt.Sprintf("R$ %s,%02d", b.String(), cents%100)
	if neg {
		s = "-" + s
	}
	return s
}
