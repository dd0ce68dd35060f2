package lexical

import "strings"

// Stem returns a light Portuguese stem of token, which must be in
// [Normalize] form (lower case, no accents): plural and gender endings are
// removed in the spirit of the RSLP stemmer's plural and feminine steps.
// Examples, written with their accents (Stem sees "pulgoes", not
// "pulgões"):
//
//	fungicidas → fungicida    culturas  → cultura    uvas      → uva
//	flores     → flor         raízes    → raiz       sementes  → semente
//	pulgões    → pulg         pulgão    → pulg       aplicações → aplicac
//	animais    → anima        animal    → anima      papéis    → pape
//	pastagens  → pastage      pastagem  → pastage    canaviais → canavia
//	sistêmica  → sistemic     sistêmico → sistemic   seletivos → seletiv
//	daninhas   → daninh       videira   → videir     viscosa   → visco
//
// The result is a stem, not a dictionary word. Two properties make it fit
// for substring matching:
//
//   - Stem only removes suffixes, so Stem(w) is always a prefix of w. A
//     stemmed query term therefore still occurs in unstemmed document
//     text, and every form that shares the stem contains it: the stem of
//     "pulgão" ("pulg") is found in "pulgões" and vice versa. Applying the
//     same stemmer to the query is enough; stored text needs no stemming
//     under substring (ILIKE '%term%') matching.
//   - Stem is idempotent: Stem(Stem(w)) == Stem(w). The rules are applied
//     until none fires.
//
// To avoid over-reduction a token of fewer than 4 letters is left alone, a
// plural "-s" is removed only when 3 letters remain, and every other rule
// only when 4 remain (5 for "-m"/"-ns", so "capim" keeps its "m").
// The "-ida/-ido" family is deliberately untouched so pesticide classes
// stay whole ("fungicida", "herbicida", "inseticida"). Tokens holding
// anything but the letters a-z (digits, hyphens, other scripts) are
// returned unchanged. Stem never allocates.
//
// Known limits of a light stemmer: irregular pairs whose stems differ
// ("fértil"/"férteis", "azul"/"azuis", "limão"/"limões") and gender pairs
// outside the suffixes above ("branco"/"branca") are not conflated.
func Stem(token string) string {
	if len(token) < 4 || !isLowerASCII(token) {
		return token
	}
	for {
		next := stemStep(token)
		if next == token {
			return token
		}
		token = next
	}
}

// StemFilter is a [TokenFilter] that replaces every token by its [Stem].
// Add it to a Tokenizer's Filters to stem queries; see Stem for why the
// document side needs no stemming. It is safe for concurrent use.
type StemFilter struct{}

// Filter stems tokens in place and returns them.
func (StemFilter) Filter(tokens []string) []string {
	for i, t := range tokens {
		tokens[i] = Stem(t)
	}
	return tokens
}

// stemStep applies the first rule that fires, or returns w unchanged. The
// rules are grouped by the last letter; within a group they are tried in
// order.
func stemStep(w string) string {
	n := len(w)
	if n < 4 {
		return w
	}
	switch w[n-1] {
	case 's':
		switch {
		// -ões/-ães/-ãos plurals of -ão: pulgões, pães, grãos, aplicações.
		case hasAnySuffix(w, "oes", "aes", "aos") && n-3 >= 4:
			return w[:n-3]
		// -ais/-eis/-óis/-uis plurals of -al/-el/-ol/-ul: animais, papéis.
		case w[n-2] == 'i' && isVowel(w[n-3]) && w[n-3] != 'i' && n-2 >= 4:
			return w[:n-2]
		// -ns plural of -m: pastagens, jardins.
		case w[n-2] == 'n' && isVowel(w[n-3]) && n-2 >= 5:
			return w[:n-2]
		// -res/-zes plurals of -r/-z: flores, raízes.
		case w[n-2] == 'e' && (w[n-3] == 'r' || w[n-3] == 'z') && n-2 >= 3:
			return w[:n-2]
		// vowel + s: lagartas, sementes, ovos.
		case isVowel(w[n-2]) && n-1 >= 3:
			return w[:n-1]
		}
	case 'l':
		// singulars of the -is plurals: animal, papel, anzol, funil.
		if isVowel(w[n-2]) && n-1 >= 4 {
			return w[:n-1]
		}
	case 'm':
		// singular of -ns: pastagem, jardim.
		if isVowel(w[n-2]) && n-1 >= 5 {
			return w[:n-1]
		}
	case 'o':
		switch {
		// singular -ão: pulgão, aplicação.
		case w[n-2] == 'a' && n-2 >= 4:
			return w[:n-2]
		// -oso: viscoso.
		case strings.HasSuffix(w, "oso") && n-2 >= 4:
			return w[:n-2]
		// gender endings: sistêmico, seletivo, concentrado, cafeeiro, daninho.
		case n >= 5 && hasAnySuffix(w, "ico", "ivo"),
			n >= 6 && hasAnySuffix(w, "ado", "eiro", "inho"):
			return w[:n-1]
		}
	case 'a':
		switch {
		// -osa: viscosa.
		case strings.HasSuffix(w, "osa") && n-2 >= 4:
			return w[:n-2]
		// gender endings: sistêmica, seletiva, concentrada, videira, daninha.
		case n >= 5 && hasAnySuffix(w, "ica", "iva"),
			n >= 6 && hasAnySuffix(w, "ada", "eira", "inha"):
			return w[:n-1]
		}
	}
	return w
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
