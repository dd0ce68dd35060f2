package snowball_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
)

func ExampleStem() {
	for _, w := range []string{"declarar", "Declaração", "declarações", "frequência"} {
		fmt.Println(snowball.Stem(lexical.Normalize(w)))
	}
	// Output:
	// declar
	// declar
	// declar
	// frequenc
}

func ExampleFilter() {
	tok := lexical.Tokenizer{Filters: []lexical.TokenFilter{snowball.Filter{}}}
	fmt.Printf("%q\n", tok.Tokens("Qual o prazo da declaração de rendimentos?"))
	// Output:
	// ["praz" "declar" "rendiment"]
}
