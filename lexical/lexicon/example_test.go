package lexicon_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/lexical/lexicon"
)

// Default tells the words of the language from typos: a word it knows is
// never "corrected" to a store's word.
func ExampleDefault() {
	l := lexicon.Default()
	fmt.Println(l.Known("sábado"), l.Known("aérea"), l.Known("fungisida"))
	// Output: true true false
}

// DefaultFrequencies says how common a word is: rank 1 is the most
// common, 0 a word outside the 10,000 most common (a technical word, a
// name).
func ExampleDefaultFrequencies() {
	f := lexicon.DefaultFrequencies()
	fmt.Println(f.Rank("carro"), f.Rank("sábado"), f.Rank("fungicida"), f.Function("vocês"))
	// Output: 217 1853 0 true
}

// NewFrequencies builds the list of another language for
// rag.EvidenceOptions.Frequencies.
func ExampleNewFrequencies() {
	f := lexicon.NewFrequencies(map[string]int{"de": 1, "la": 2, "coche": 900}, []string{"de", "la"})
	fmt.Println(f.Rank("Coche"), f.Function("de"), f.Len())
	// Output: 900 true 3
}
