package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize folds s into the canonical form used for matching on both the
// query and the document side: invalid UTF-8 is repaired (each bad byte
// becomes U+FFFD), the text is decomposed (NFD), combining marks are dropped,
// letters are lower-cased and every run of white space becomes a single
// ASCII space, with none at either end.
//
// "Café" in NFC, "Cafe\u0301" in NFD and "cafe" all normalize to "cafe".
// Normalize is idempotent: Normalize(Normalize(s)) == Normalize(s).
// It is safe for concurrent use.
func Normalize(s string) string {
	if isNormalASCII(s) {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	var it norm.Iter
	it.InitString(norm.NFD, s)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			switch {
			case unicode.Is(unicode.Mn, r):
				continue
			case unicode.IsSpace(r):
				space = b.Len() > 0
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(foldRune(r))
		}
	}
	return b.String()
}

// foldRune lower-cases r. Some lower-case forms decompose again (e.g. the
// Kelvin sign K → k is fine, but U+0130 İ → i̇ carries a mark), so the result
// is re-checked by callers through idempotency tests.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}
	return unicode.ToLower(r)
}

// isNormalASCII reports whether s is already normalized ASCII: no upper-case
// letters, no white space other than single inner spaces.
func isNormalASCII(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return false
		case 'A' <= c && c <= 'Z':
			return false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false
		default:
			prevSpace = false
		}
	}
	return !prevSpace || len(s) == 0
}
