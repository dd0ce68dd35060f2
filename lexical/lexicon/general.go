package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"iter"
	"strconv"
	"strings"
	"sync"

	"github.com/hybridrag/hybridrag/lexical"
)

// general.txt.gz: word, frequency rank, tags ("s": a stopword), tab-separated,
// one a line; built by genfreq/ (see its doc for the sources).
//
//go:embed general.txt.gz
var generalData []byte

// Usage is what the general language says of a word: how common it is and
// whether it is a function word.
type Usage struct {
	// Rank is the word's frequency rank among the most common words of
	// Brazilian Portuguese (subtitles, FrequencyWords) or English
	// (SUBTLEX-US), the better of the two: 1 is the most common word; 0
	// means the word is not among the 10,000 most common of either
	// language (a technical or rare word, a name, a typo).
	Rank int
	// Stop marks a function word of either language (stopwords-iso):
	// articles, pronouns, prepositions, auxiliaries, request words.
	Stop bool
}

// Frequencies maps the most common words of Brazilian Portuguese and
// English (lexical.Normalize form) to their Usage. It is immutable and
// safe for concurrent use.
type Frequencies struct {
	words map[string]Usage
}

var (
	generalOnce sync.Once
	generalFreq *Frequencies
)

// General returns the embedded frequency list: the 10,000 most common
// words of each language and their stopwords (about 19,000 words). A
// damaged embedded list yields an empty one.
func General() *Frequencies {
	generalOnce.Do(func() {
		generalFreq = &Frequencies{words: map[string]Usage{}}
		zr, err := gzip.NewReader(bytes.NewReader(generalData))
		if err != nil {
			return
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			return
		}
		for line := range strings.SplitSeq(string(raw), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				continue
			}
			r, err := strconv.Atoi(f[1])
			if err != nil || r < 0 {
				continue
			}
			generalFreq.words[f[0]] = Usage{Rank: r, Stop: strings.Contains(f[2], "s")}
		}
	})
	return generalFreq
}

// Lookup returns the Usage of word (any case and accents) and whether the
// list holds it. A nil Frequencies holds nothing.
func (f *Frequencies) Lookup(word string) (Usage, bool) {
	if f == nil {
		return Usage{}, false
	}
	u, ok := f.words[lexical.Normalize(word)]
	return u, ok
}

// All yields every word of the list (lexical.Normalize form) with its
// Usage, in no particular order.
func (f *Frequencies) All() iter.Seq2[string, Usage] {
	return func(yield func(string, Usage) bool) {
		if f == nil {
			return
		}
		for w, u := range f.words {
			if !yield(w, u) {
				return
			}
		}
	}
}

// Len is the number of words the list holds.
func (f *Frequencies) Len() int {
	if f == nil {
		return 0
	}
	return len(f.words)
}
