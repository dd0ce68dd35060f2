// Package lexicon tells the words of the general language (Brazilian
// Portuguese and English) from typos, so typo correction rewrites a word
// only when no dictionary knows it: "sábado", "aérea", "entregar",
// "remédio" and "delivery" are words even where no record of a store
// holds them; "fungisida" is not.
//
// The word list is built from two Hunspell spelling dictionaries, every
// entry with the forms its suffix rules give (plurals, gender, verb
// tenses), reduced to the Snowball stem ([snowball.Stem]) of each form: a
// word is known when its stem is. Sources, both as published on npm:
//
//   - dictionary-pt 4.0.0: VERO, the LibreOffice Brazilian Portuguese
//     dictionary (Raimundo Santos Moura and the VERO project), under the
//     LGPL-3.0 or the MPL-2.0; the stem list derived from it, words.txt.gz,
//     is distributed under the MPL-2.0 (LICENSE-VERO);
//   - dictionary-en 4.0.0: SCOWL's en-US Hunspell dictionary (Kevin Atkinson
//     and others), under MIT and BSD terms (LICENSE-SCOWL).
//
// gen/ rebuilds the list from the two packages (see its doc). The list is
// read on first use (about 0.2 s, 9 MB of memory) and shared; a Lexicon
// is immutable and safe for concurrent use.
//
// [DefaultFrequencies] says how common a word is: the frequency rank of
// the 10,000 most common words of Brazilian Portuguese (FrequencyWords'
// pt_br list, from subtitles; CC-BY-SA-4.0) and the function words of
// Portuguese and English (stopwords-iso; MIT); see NOTICE. Package rag
// weighs a question's words by it: "carro" or "sábado" name something,
// "vocês" or "algum" say little, "fungicida" is no everyday word at all.
// genfreq/ rebuilds it.
package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
)

//go:embed words.txt.gz
var words []byte

// Lexicon is a set of known words, compared by the Snowball stem of
// their lexical.Normalize form. It holds the stems sorted, one a line, in
// one string, with the offset of each line: about 9 MB for the default
// list's 750,000 stems, searched by bisection.
type Lexicon struct {
	data string
	offs []uint32 // start of each line; len(data) closes the last
}

// New returns a lexicon of words (any form: they are normalized and
// stemmed).
func New(words []string) *Lexicon {
	stems := make([]string, 0, len(words))
	for _, w := range words {
		if n := lexical.Normalize(w); n != "" {
			stems = append(stems, snowball.Stem(n))
		}
	}
	slices.Sort(stems)
	return fromSorted(slices.Compact(stems))
}

// fromSorted builds a lexicon of sorted, distinct stems.
func fromSorted(stems []string) *Lexicon {
	var b strings.Builder
	offs := make([]uint32, 0, len(stems))
	for _, s := range stems {
		offs = append(offs, uint32(b.Len()))
		b.WriteString(s)
	}
	return &Lexicon{data: b.String(), offs: offs}
}

// at is the i-th stem.
func (l *Lexicon) at(i int) string {
	end := len(l.data)
	if i+1 < len(l.offs) {
		end = int(l.offs[i+1])
	}
	return l.data[l.offs[i]:end]
}

var (
	defaultOnce sync.Once
	defaultLex  *Lexicon
)

// Default returns the embedded Brazilian Portuguese and English lexicon.
// A damaged embedded list yields an empty lexicon (every word unknown),
// which only makes typo correction behave as it did without one.
func Default() *Lexicon {
	defaultOnce.Do(func() {
		defaultLex = &Lexicon{}
		zr, err := gzip.NewReader(bytes.NewReader(words))
		if err != nil {
			return
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			return
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if !slices.IsSorted(lines) {
			slices.Sort(lines)
		}
		defaultLex = fromSorted(slices.Compact(lines))
	})
	return defaultLex
}

// Known reports whether word (any case and accents) is a word of the
// lexicon: its normalized Snowball stem is. A nil Lexicon knows nothing.
func (l *Lexicon) Known(word string) bool {
	if l == nil {
		return false
	}
	n := lexical.Normalize(word)
	if n == "" {
		return false
	}
	st := snowball.Stem(n)
	lo, hi := 0, len(l.offs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.at(m) < st {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(l.offs) && l.at(lo) == st
}

// Len is the number of stems the lexicon holds.
func (l *Lexicon) Len() int {
	if l == nil {
		return 0
	}
	return len(l.offs)
}
