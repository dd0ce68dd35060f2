package lexical

import (
	"strings"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/portuguese"
)

// foldedEndings are the accented word endings that Normalize folds and the
// Snowball Portuguese stemmer needs to see, longest first: in Portuguese a
// word ending in "-cao" is, with very few exceptions, one ending in
// "-ção".
var foldedEndings = [...]struct{ folded, accented string }{
	{"coes", "ções"}, {"soes", "sões"}, {"cao", "ção"}, {"sao", "são"},
	{"oes", "ões"}, {"aes", "ães"}, {"ao", "ão"},
}

// minSnowballStem is the shortest stem SnowballStem returns; a shorter
// Snowball result falls back to [Stem].
const minSnowballStem = 4

// SnowballStem returns the Snowball Portuguese stem
// (github.com/blevesearch/snowballstem, the stemmer of Lucene's and
// bleve's Portuguese analyzers) of token, which must be in [Normalize]
// form. It conflates far more than [Stem]: verbs and their nouns and
// adjectives share a stem ("declarar", "declaração", "declarada" →
// "declar"; "obrigado", "obrigatório", "obrigação" → "obrig"; "entregar",
// "entrega", "entreguei" → "entreg"), which is what matching questions
// written in other words needs. It is meant for FAQ and document search;
// catalog search keeps the light Stem, whose short stems leave product
// classes such as "fungicida" whole.
//
// Two adjustments keep it fit for prefix matching over unstemmed, folded
// text:
//
//   - The endings "-ção", "-ções", "-são", "-ão", "-ões" and "-ães" that
//     Normalize folded are restored before stemming, so "declaracao"
//     stems as "declaração" does.
//   - Snowball sometimes rewrites a suffix instead of removing it
//     ("frequência" → "frequent"); the result is then cut to its longest
//     common prefix with token ("frequen"), so SnowballStem(w) is always
//     a prefix of w, as Stem(w) is.
//
// A stem shorter than 4 letters is not trusted (three letters match too
// many unrelated words by prefix): Stem's result is returned instead.
// Tokens holding anything but the letters a-z are returned unchanged. SnowballStem allocates; use it on queries, not
// on stored text.
func SnowballStem(token string) string {
	if len(token) < minSnowballStem || !isLowerASCII(token) {
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
	stem := Normalize(env.Current())
	n := 0
	for n < len(stem) && n < len(token) && stem[n] == token[n] {
		n++
	}
	if n < minSnowballStem {
		return Stem(token)
	}
	return token[:n]
}

// SnowballFilter is a [TokenFilter] that replaces every token by its
// [SnowballStem]. The default FAQ and document scorers of package rag use
// it. It is safe for concurrent use.
type SnowballFilter struct{}

// Filter stems tokens in place and returns them.
func (SnowballFilter) Filter(tokens []string) []string {
	for i, t := range tokens {
		tokens[i] = SnowballStem(t)
	}
	return tokens
}
