package merge_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/merge"
)

func ExampleSimple() {
	vector := []merge.Hit{{ID: "a", Score: 0.91}, {ID: "b", Score: 0.74}}
	lexical := []merge.Hit{{ID: "b", Score: 3}, {ID: "c", Score: 2}, {ID: "d", Score: 1}}
	for _, f := range merge.Simple(vector, lexical, 3) {
		fmt.Println(f.ID, f.In(merge.ListVector), f.In(merge.ListLexical))
	}
	// Output:
	// a true false
	// b true true
	// c false true
}

func ExampleRRF() {
	fused := merge.RRF([]merge.List{
		{Name: "vector", Hits: []merge.Hit{{ID: "a"}, {ID: "b"}, {ID: "c"}}},
		{Name: "lexical", Weight: 2, Hits: []merge.Hit{{ID: "c"}, {ID: "d"}}},
	}, merge.RRFOptions{}) // K 0 means 60
	for _, f := range fused {
		fmt.Printf("%s %.5f", f.ID, f.Score)
		for _, c := range f.Explanation.Lists {
			if c.Rank > 0 {
				fmt.Printf("  %s#%d %.0f/(60+%d)", c.List, c.Rank, c.Weight, c.Rank)
			}
		}
		fmt.Println()
	}
	// Output:
	// c 0.04866  vector#3 1/(60+3)  lexical#1 2/(60+1)
	// d 0.03226  lexical#2 2/(60+2)
	// a 0.01639  vector#1 1/(60+1)
	// b 0.01613  vector#2 1/(60+2)
}

func ExampleWeighted() {
	vector := []merge.Hit{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.6}} // similarity = -distance
	lexical := []merge.LexicalHit{{ID: "b", Score: 8, Pair: true}, {ID: "c", Score: 4}}
	fused := merge.Weighted(vector, lexical, merge.WeightedOptions{
		// Score vector-only hits lexically too (here: a fixed score).
		LexicalFor: func(id string) (float64, bool) { return 2, false },
	})
	for _, f := range fused {
		c := f.Explanation.Combined
		fmt.Printf("%s %.2f = vec %.2f + lex %.2f + pair %.0f + ranks %.2f\n", f.ID, f.Score,
			c.Vector.Contribution, c.Lexical.Contribution, c.Pair.Contribution,
			c.VectorRank.Contribution+c.LexicalRank.Contribution)
	}
	// Output:
	// b 13.10 = vec 3.60 + lex 4.00 + pair 4 + ranks 1.50
	// a 7.40 = vec 5.40 + lex 1.00 + pair 0 + ranks 1.00
	// c 2.50 = vec 0.00 + lex 2.00 + pair 0 + ranks 0.50
}

func ExampleRelativeScore() {
	fused := merge.RelativeScore([]merge.List{
		{Name: "vector", Hits: []merge.Hit{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.7}, {ID: "c", Score: 0.5}}},
		{Name: "lexical", Hits: []merge.Hit{{ID: "c", Score: 12}, {ID: "d", Score: 4}}},
	}, merge.RelativeOptions{})
	for _, f := range fused {
		fmt.Printf("%s %.2f\n", f.ID, f.Score)
	}
	// Output:
	// a 1.00
	// c 1.00
	// b 0.50
	// d 0.00
}
