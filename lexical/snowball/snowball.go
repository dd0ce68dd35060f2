package snowball

import (
	"strings"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/portuguese"

	"github.com/hybridrag/hybridrag/lexical"
)

// foldedEndings are the accented word endings that lexical.Normalize folds
// and the Snowball Portuguese stemmer needs to see, longest first: in
// Portuguese a word ending in "-cao" is, with very few exceptions, one
// ending in "-ção".
var foldedEndings = [...]struct{ folded, accented string }{
	{"coes", "ções"}, {"soes", "sões"}, {"cao", "ção"}, {"sao", "são"},
	{"oes", "ões"}, {"aes", "ães"}, {"ao", "ão"},
}

// minStem is the shortest stem Stem returns; a shorter Snowball result
// falls back to [lexical.Stem].
const minStem = 4

// Stem returns the Snowball Portuguese stem
// (github.com/blevesearch/snowballstem, the stemmer of Lucene's and
// bleve's Portuguese analyzers) of token, which must be in
// [lexical.Normalize] form. It conflates far more than [lexical.Stem]:
// verbs and their nouns and adjectives share a stem ("declarar",
// "declaração", "declarada" → "declar"; "obrigado", "obrigatório",
// "obrigação" → "obrig"; "entregar", "entrega", "entreguei" → "entreg"),
// which is what matching questions written in other words needs. It is
// meant for FAQ and document search; catalog search keeps the light
// lexical.Stem, whose short stems leave product classes such as
// "fungicida" whole.
//
// Two adjustments keep it fit for prefix matching over unstemmed, folded
// text:
//
//   - The endings "-ção", "-ções", "-são", "-ão", "-ões" and "-ães" that
//     lexical.Normalize folded are restored before stemming, so
//     "declaracao" stems as "declaração" does.
//   - Snowball's rules can rewrite a suffix instead of removing it (they
//     turn "eficiência" into "eficient"); a result that is not a prefix of
//     token is cut to its longest common prefix with token, so Stem(w) is
//     always a prefix of w, as lexical.Stem(w) is.
//
// A stem shorter than 4 letters is not trusted (three letters match too
// many unrelated words by prefix): lexical.Stem's result is returned
// instead. Tokens holding anything but the letters a-z are returned
// unchanged. Stem allocates; use it on queries, not on stored text.
func Stem(token string) string {
	if len(token) < minStem || !isLowerASCII(token) {
		return token
	}
	word := token
	for _, e := range foldedEndings {
		if strings.HasSuffix(token, e.folded) {
			word = token[:len(token)-len(e.folded)] + e.accented
			break
		}
	}
	env := snowballstem.NewEnv(word)
	portuguese.Stem(env)
	stem := lexical.Normalize(env.Current())
	n := 0
	for n < len(stem) && n < len(token) && stem[n] == token[n] {
		n++
	}
	if n < minStem {
		return lexical.Stem(token)
	}
	return token[:n]
}

// Filter is a [lexical.TokenFilter] that replaces every token by its
// [Stem]. The default FAQ and document scorers of package rag use it. It
// is safe for concurrent use.
type Filter struct{}

// Filter stems tokens in place and returns them.
func (Filter) Filter(tokens []string) []string {
	for i, t := range tokens {
		tokens[i] = Stem(t)
	}
	return tokens
}

// isLowerASCII reports whether s holds only the letters a-z.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
