package lexical

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed stopwords_pt.txt
var stopwordsPT string

//go:embed stopwords_en.txt
var stopwordsEN string

// StopwordSet is an immutable set of words a [Tokenizer] drops. Words are
// stored in [Normalize] form, so "Não" and "nao" are the same stopword.
// The zero value and nil are empty sets. A StopwordSet is safe for
// concurrent use.
type StopwordSet struct {
	words map[string]struct{}
}

// NewStopwordSet returns a set holding words, each folded by [Normalize];
// empty words are ignored.
func NewStopwordSet(words ...string) *StopwordSet {
	s := &StopwordSet{words: make(map[string]struct{}, len(words))}
	for _, w := range words {
		if n := Normalize(w); n != "" {
			s.words[n] = struct{}{}
		}
	}
	return s
}

var defaultStopwords = sync.OnceValue(func() *StopwordSet {
	words := append(parseWordList(stopwordsPT), parseWordList(stopwordsEN)...)
	return NewStopwordSet(words...)
})

// DefaultStopwords returns the embedded Portuguese (pt-BR) and English
// stopword list: articles, prepositions, pronouns, the forms of "ser",
// "estar", "ter" and "haver", and chat fillers such as "quero", "preciso"
// and "gostaria". The same set is returned on every call; it is immutable.
func DefaultStopwords() *StopwordSet { return defaultStopwords() }

// Contains reports whether word is in the set. word must already be in
// [Normalize] form (tokens are).
func (s *StopwordSet) Contains(word string) bool {
	if s == nil {
		return false
	}
	_, ok := s.words[word]
	return ok
}

// Len returns the number of words in the set.
func (s *StopwordSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.words)
}

// With returns a new set holding the words of s and words (folded by
// [Normalize]). s is not modified. Use it to add domain words that carry
// no topic in a catalog, for example DefaultStopwords().With("produto").
func (s *StopwordSet) With(words ...string) *StopwordSet {
	out := &StopwordSet{words: make(map[string]struct{}, s.Len()+len(words))}
	if s != nil {
		for w := range s.words {
			out.words[w] = struct{}{}
		}
	}
	for _, w := range words {
		if n := Normalize(w); n != "" {
			out.words[n] = struct{}{}
		}
	}
	return out
}

// Without returns a new set holding the words of s except words (folded
// by [Normalize]). s is not modified.
func (s *StopwordSet) Without(words ...string) *StopwordSet {
	out := s.With()
	for _, w := range words {
		delete(out.words, Normalize(w))
	}
	return out
}

// parseWordList reads one word per line, skipping blank lines and '#'
// comments.
func parseWordList(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if w := strings.TrimSpace(line); w != "" {
			out = append(out, w)
		}
	}
	return out
}
