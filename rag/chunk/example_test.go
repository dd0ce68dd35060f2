package chunk_test

import (
	"fmt"
	"strings"

	"github.com/hybridrag/hybridrag/rag/chunk"
)

func ExampleRecursive() {
	r, err := chunk.NewRecursive(chunk.RecursiveOptions{Size: 40, Overlap: 20})
	if err != nil {
		panic(err)
	}
	text := "Soja: ferrugem. Milho: cigarrinha. Café: broca. Uva: míldio."
	for i, c := range r.Split(text) {
		fmt.Printf("%d [%d:%d] %q\n", i, c.Start, c.Start+len(c.Text), c.Text)
	}
	// Output:
	// 0 [0:34] "Soja: ferrugem. Milho: cigarrinha."
	// 1 [16:48] "Milho: cigarrinha. Café: broca."
	// 2 [35:62] "Café: broca. Uva: míldio."
}

func ExampleStructural() {
	text := "# Manual\n\nIntrodução.\n\n## Soja\n\nFerrugem asiática: aplicar fungicida.\n"
	sections := []chunk.Section{
		{Start: 0, End: 24, Level: 1, HeadingPath: []string{"Manual"}},
		{Start: 24, End: len(text), Level: 2, HeadingPath: []string{"Manual", "Soja"}},
	}
	st, err := chunk.NewStructural(chunk.StructuralOptions{})
	if err != nil {
		panic(err)
	}
	chunks, err := st.Split(text, sections)
	if err != nil {
		panic(err)
	}
	for i, c := range chunks {
		fmt.Printf("%d %s: %q\n", i, strings.Join(c.HeadingPath, chunk.HeadingSeparator), c.Text)
	}
	// Output:
	// 0 Manual: "# Manual\n\nIntrodução."
	// 1 Manual › Soja: "## Soja\n\nFerrugem asiática: aplicar fungicida."
}
