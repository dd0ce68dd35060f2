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

// general.txt.gz: word, frequency rank (0: none) and "f" for a function
// word, tab-separated, one a line; built by genfreq/ (see its doc for the
// sources and NOTICE for their licences).
//
//go:embed general.txt.gz
var generalData []byte

// Frequencies maps common words of a language (lexical.Normalize form) to
// their frequency rank, 1 for the most common. It is immutable and safe
// for concurrent use; a nil Frequencies holds no word.
type Frequencies struct {
	ranks    map[string]int
	function map[string]bool
}

// NewFrequencies returns the list of ranks given, word → rank (any case
// and accents; ranks below 1 and empty words are ignored; of two words
// that fold alike the better rank is kept), and of function words
// (articles, pronouns, prepositions, auxiliaries): a store in another
// language passes its own.
func NewFrequencies(ranks map[string]int, function []string) *Frequencies {
	f := &Frequencies{ranks: make(map[string]int, len(ranks)), function: make(map[string]bool, len(function))}
	for w, r := range ranks {
		f.add(lexical.Normalize(w), r)
	}
	for _, w := range function {
		if n := lexical.Normalize(w); n != "" {
			f.function[n] = true
		}
	}
	return f
}

func (f *Frequencies) add(w string, r int) {
	if w == "" || r < 1 {
		return
	}
	if old, ok := f.ranks[w]; !ok || r < old {
		f.ranks[w] = r
	}
}

var defaultFrequencies = sync.OnceValue(func() *Frequencies {
	f := &Frequencies{ranks: map[string]int{}, function: map[string]bool{}}
	zr, err := gzip.NewReader(bytes.NewReader(generalData))
	if err != nil {
		return f
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return f
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || cols[0] == "" {
			continue
		}
		if n, err := strconv.Atoi(cols[1]); err == nil {
			f.add(cols[0], n)
		}
		if cols[2] == "f" {
			f.function[cols[0]] = true
		}
	}
	return f
})

// DefaultFrequencies returns the embedded list: the 10,000 most common
// words of Brazilian Portuguese subtitles (FrequencyWords' pt_br list,
// OpenSubtitles 2016; CC-BY-SA-4.0, see NOTICE), about 9,900 once folded,
// and the Portuguese and English function words of stopwords-iso (MIT).
// A damaged embedded list yields an empty one, which only turns off what
// depends on it.
func DefaultFrequencies() *Frequencies { return defaultFrequencies() }

// Rank returns word's frequency rank (any case and accents), or 0 when the
// list does not hold it: a rare or technical word, a name, a typo, a word
// of another language.
func (f *Frequencies) Rank(word string) int {
	if f == nil {
		return 0
	}
	return f.ranks[lexical.Normalize(word)]
}

// Function reports whether word (any case and accents) is a function
// word of the list.
func (f *Frequencies) Function(word string) bool {
	if f == nil {
		return false
	}
	return f.function[lexical.Normalize(word)]
}

// All yields every ranked word of the list (lexical.Normalize form) with its
// rank, in no particular order.
func (f *Frequencies) All() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		if f == nil {
			return
		}
		for w, r := range f.ranks {
			if !yield(w, r) {
				return
			}
		}
	}
}

// Len is the number of ranked words the list holds.
func (f *Frequencies) Len() int {
	if f == nil {
		return 0
	}
	return len(f.ranks)
}

// Functions yields every function word of the list, in no particular
// order.
func (f *Frequencies) Functions() iter.Seq[string] {
	return func(yield func(string) bool) {
		if f == nil {
			return
		}
		for w := range f.function {
			if !yield(w) {
				return
			}
		}
	}
}
