package morph

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"
)

// verbs.txt.gz: the conjugation rules and the verbs of VERO, the LibreOffice
// Brazilian Portuguese spelling dictionary (MPL-2.0; see
// lexical/lexicon/NOTICE), extracted and normalized by lexical/lexicon/gen
// -verbs: "SFX flag strip add condition" lines, "verb/flags" lines, then
// "!word" lines for the forms of those verbs that the dictionary also
// gives as nouns or adjectives.
//
//go:embed verbs.txt.gz
var verbsData []byte

// Load reads the verb table now (VerbForm reads it on first use, about
// 10 ms): a server calls it while warming up.
func Load() { verbTable() }

// VerbForm reports whether word (in lexical.Normalize form) is a form
// only a verb has: an infinitive, a gerund, a past, future, imperfect or
// plural form of a verb of the dictionary ("mandei", "arrependi",
// "abrem", "ligar", "chegou"). Forms nouns and adjectives share are not:
// participles ("usado", "imposto", "aberto": adjectives too) and the
// present singular ("entrega", "troca", "plano", "multa": a dictionary
// lists such a noun once, under the verb). A word no verb gives is not
// ("galao", "sabado", "paraguai").
func VerbForm(word string) bool {
	verbCache.Lock()
	v, ok := verbCache.m[word]
	verbCache.Unlock()
	if ok {
		return v
	}
	v = verbForm(word)
	verbCache.Lock()
	if verbCache.m == nil || len(verbCache.m) >= verbCacheSize {
		verbCache.m = make(map[string]bool)
	}
	verbCache.m[word] = v
	verbCache.Unlock()
	return v
}

// verbCache remembers VerbForm's answers (a question's words are looked
// up once per kind searched); it is emptied when it reaches
// verbCacheSize words.
var verbCache struct {
	sync.Mutex
	m map[string]bool
}

const verbCacheSize = 4096

func verbForm(word string) bool {
	t := verbTable()
	if t == nil || len(word) < 2 || Participle(word) {
		return false
	}
	if t.nominal[word] {
		return false
	}
	if _, ok := t.verbs[word]; ok {
		return true
	}
	for k := 0; k <= min(t.maxAdd, len(word)-1); k++ {
		for _, r := range t.byAdd[word[len(word)-k:]] {
			lemma := word[:len(word)-k] + r.strip
			flags, ok := t.verbs[lemma]
			if !ok || !strings.ContainsRune(flags, rune(r.flag)) || !r.matches(lemma) || PresentSingular(lemma, word) {
				continue
			}
			return true
		}
	}
	return false
}

// Participle reports a participle's ending: regular (-ado, -ido) or
// irregular (-sto, -rto, -nto and the like after a consonant, -so), with
// the feminine and plural forms.
func Participle(w string) bool {
	w = strings.TrimSuffix(w, "s")
	if !strings.HasSuffix(w, "o") && !strings.HasSuffix(w, "a") {
		return false
	}
	w = w[:len(w)-1]
	switch {
	case strings.HasSuffix(w, "ad"), strings.HasSuffix(w, "id"):
		return true
	case len(w) >= 2 && (w[len(w)-1] == 't' || w[len(w)-1] == 's'):
		return !strings.ContainsRune("aeiou", rune(w[len(w)-2]))
	}
	return false
}

// PresentSingular reports whether form is the present singular (or its
// subjunctive) of the verb lemma: the stem of the infinitive with -o,
// -a, -as, -e, -es or -os.
func PresentSingular(lemma, form string) bool {
	if len(lemma) < 3 {
		return false
	}
	rest, ok := strings.CutPrefix(form, lemma[:len(lemma)-2])
	return ok && (rest == "o" || rest == "a" || rest == "as" || rest == "e" || rest == "es" || rest == "os")
}

type verbRule struct {
	flag  byte
	strip string
	// cond is the rule's condition on the verb's ending: one set of
	// allowed (or, negated, refused) letters per position; nil set: any.
	cond []condPart
}

type condPart struct {
	set    string
	negate bool
}

func (r *verbRule) matches(lemma string) bool {
	if len(r.cond) > len(lemma) {
		return false
	}
	end := lemma[len(lemma)-len(r.cond):]
	for i, p := range r.cond {
		if p.set == "" {
			continue
		}
		if strings.IndexByte(p.set, end[i]) >= 0 == p.negate {
			return false
		}
	}
	return true
}

type verbs struct {
	byAdd  map[string][]verbRule
	maxAdd int
	verbs  map[string]string
	// nominal are the verb forms the dictionary also gives as nouns or
	// adjectives ("areia", "ataque", "cheque").
	nominal map[string]bool
}

var verbTable = sync.OnceValue(func() *verbs {
	zr, err := gzip.NewReader(bytes.NewReader(verbsData))
	if err != nil {
		return nil
	}
	t := &verbs{byAdd: map[string][]verbRule{}, verbs: map[string]string{}, nominal: map[string]bool{}}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 5 && f[0] == "SFX" {
			strip, add := f[2], f[3]
			if strip == "0" {
				strip = ""
			}
			if add == "0" {
				add = ""
			}
			t.byAdd[add] = append(t.byAdd[add], verbRule{flag: f[1][0], strip: strip, cond: parseCond(f[4])})
			t.maxAdd = max(t.maxAdd, len(add))
			continue
		}
		if w, ok := strings.CutPrefix(line, "!"); ok {
			t.nominal[w] = true
			continue
		}
		if w, flags, ok := strings.Cut(line, "/"); ok {
			// Two verbs may normalize alike ("pôr", "por"): both flags.
			t.verbs[w] += flags
		}
	}
	if sc.Err() != nil || len(t.verbs) == 0 {
		return nil
	}
	return t
})

// parseCond reads a Hunspell condition: letters, "." and bracketed sets,
// "[^…]" negated.
func parseCond(c string) []condPart {
	if c == "." {
		return nil
	}
	var out []condPart
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '.':
			out = append(out, condPart{})
		case '[':
			j := strings.IndexByte(c[i:], ']')
			if j < 0 {
				return out
			}
			body := c[i+1 : i+j]
			p := condPart{set: strings.TrimPrefix(body, "^"), negate: strings.HasPrefix(body, "^")}
			out = append(out, p)
			i += j
		default:
			out = append(out, condPart{set: c[i : i+1]})
		}
	}
	return out
}
