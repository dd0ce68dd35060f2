package lexical

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize folds s into the canonical form used for matching on both the
// query and the document side:
//
//   - invalid UTF-8 is repaired: each maximal run of bad bytes becomes
//     U+FFFD (see [strings.ToValidUTF8]);
//   - the text is decomposed (Unicode NFD, golang.org/x/text/unicode/norm)
//     and non-spacing combining marks (category Mn) are dropped, which
//     removes accents: "ç" → "c", "ã" → "a";
//   - letters are lower-cased;
//   - invisible format characters (category Cf: soft hyphen, zero-width
//     space, byte order mark) are dropped;
//   - every run of white space and control characters becomes a single
//     ASCII space, with none at either end.
//
// Punctuation, hyphens and digits are kept, so "Cana-de-Açúcar 2,4-D"
// becomes "cana-de-acucar 2,4-d"; splitting is the tokenizer's job.
// "Café" in NFC, "Cafe\u0301" in NFD and "cafe" all normalize to "cafe".
//
// Normalize is idempotent, Normalize(Normalize(s)) == Normalize(s), and its
// result is valid UTF-8 (both are checked by FuzzNormalize). Text that is
// already normalized ASCII is returned as is, without allocating, so
// storing text normalized once makes later matching cheap. Normalize is
// safe for concurrent use.
func Normalize(s string) string {
	if isNormalASCII(s) {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if out, ok := normalizeTable(s); ok {
		return out
	}
	return normalizeFull(s)
}

// normalizeTable folds s rune by rune with a precomputed table. It covers
// ASCII, the Latin blocks, the combining diacritical marks (U+0080 to
// U+036F) and general punctuation (U+2000 to U+206F), which is all of
// Portuguese and most Western text; it reports false on any other rune.
// On those blocks it equals normalizeFull: NFD decomposes each rune on its
// own and canonical reordering only moves combining marks, which are
// dropped.
func normalizeTable(s string) (string, bool) {
	table := foldTable()
	var w foldWriter
	w.b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			w.ascii(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		var f *foldEntry
		switch {
		case r < foldLatinEnd:
			f = &table[r-utf8.RuneSelf]
		case foldPunctStart <= r && r < foldPunctEnd:
			f = &table[foldLatinEnd-utf8.RuneSelf+r-foldPunctStart]
		default:
			return "", false
		}
		if f.space {
			w.space()
		} else if f.text != "" {
			w.emitString(f.text)
		}
	}
	return w.b.String(), true
}

// The blocks normalizeTable covers.
const (
	foldLatinEnd   = 0x370
	foldPunctStart = 0x2000
	foldPunctEnd   = 0x2070
)

// foldEntry is how one rune folds: to text (possibly empty: dropped) or to
// white space.
type foldEntry struct {
	text  string
	space bool
}

var foldTable = sync.OnceValue(func() []foldEntry {
	t := make([]foldEntry, 0, foldLatinEnd-utf8.RuneSelf+foldPunctEnd-foldPunctStart)
	add := func(r rune) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			t = append(t, foldEntry{space: true})
			return
		}
		// normalizeFull of a lone non-space rune is exactly its fold.
		t = append(t, foldEntry{text: normalizeFull(string(r))})
	}
	for r := rune(utf8.RuneSelf); r < foldLatinEnd; r++ {
		add(r)
	}
	for r := rune(foldPunctStart); r < foldPunctEnd; r++ {
		add(r)
	}
	return t
})

// normalizeFull is the reference algorithm: NFD via x/text's iterator
// (decomposition and canonical reordering), then the fold of each rune.
func normalizeFull(s string) string {
	var w foldWriter
	w.b.Grow(len(s))
	var it norm.Iter
	it.InitString(norm.NFD, s)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			if r < utf8.RuneSelf {
				w.ascii(byte(r))
				continue
			}
			switch {
			case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Cf, r):
				continue
			case unicode.IsSpace(r), unicode.IsControl(r):
				w.space()
				continue
			}
			lr := unicode.ToLower(r)
			if lr == r || norm.NFD.PropertiesString(string(lr)).Decomposition() == nil {
				w.emit(lr)
				continue
			}
			// The lower-case form decomposes again (it carries a mark of
			// its own): fold it the same way so the result stays stable.
			for _, d := range norm.NFD.String(string(lr)) {
				if unicode.Is(unicode.Mn, d) {
					continue
				}
				w.emit(unicode.ToLower(d))
			}
		}
	}
	return w.b.String()
}

// foldWriter accumulates normalized output, collapsing white space.
type foldWriter struct {
	b            strings.Builder
	pendingSpace bool
}

// space records a white-space run; it is written only before the next
// visible rune, so leading and trailing space never appear.
func (w *foldWriter) space() { w.pendingSpace = w.b.Len() > 0 }

func (w *foldWriter) flushSpace() {
	if w.pendingSpace {
		w.b.WriteByte(' ')
		w.pendingSpace = false
	}
}

// ascii folds one ASCII byte.
func (w *foldWriter) ascii(c byte) {
	switch {
	case 'A' <= c && c <= 'Z':
		c += 'a' - 'A'
	case c <= ' ' || c == 0x7f:
		w.space()
		return
	}
	w.flushSpace()
	w.b.WriteByte(c)
}

func (w *foldWriter) emit(r rune) {
	w.flushSpace()
	w.b.WriteRune(r)
}

func (w *foldWriter) emitString(s string) {
	w.flushSpace()
	w.b.WriteString(s)
}

// isNormalASCII reports whether s is already normalized ASCII: no upper-case
// letters, no control characters, no white space other than single inner
// spaces. It checks eight bytes at a time; this scan is all Normalize costs
// on text stored normalized.
func isNormalASCII(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		lows  = 0x7f7f7f7f7f7f7f7f
	)
	if len(s) == 0 {
		return true
	}
	prevSpace := true // a leading space is not normal
	for len(s) >= 8 {
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if x&highs != 0 {
			return false // non-ASCII
		}
		// Every byte is < 0x80 from here on, which the tests below need.
		if (x-ones*0x20)&^x&highs != 0 {
			return false // control character (< 0x20)
		}
		if t := x ^ ones*0x7f; (t-ones)&^t&highs != 0 {
			return false // DEL
		}
		if (ones*(127+'Z'+1)-x)&^x&(x+ones*(127-('A'-1)))&highs != 0 {
			return false // upper-case letter
		}
		t := x ^ ones*' '
		sp := ^((t&lows + lows) | t | lows) // high bit set exactly on spaces
		if sp&(sp<<8) != 0 || (prevSpace && sp&0x80 != 0) {
			return false // two spaces in a row, or a leading one
		}
		prevSpace = sp>>63 != 0
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf, 'A' <= c && c <= 'Z', c < ' ', c == 0x7f:
			return false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		default:
			prevSpace = false
		}
	}
	return !prevSpace
}
