package scoring_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/scoring"
)

func ExampleCombinedScore() {
	c := scoring.CombinedScore(scoring.CombinedInput{
		HasVector:        true,
		VectorSimilarity: 0.8, // distance -0.8
		LexicalScore:     10,
		LexicalMax:       12.5, // best lexicalScore among the candidates
		Pair:             true, // matched a culture and a treatment
		VectorRank:       2,
		LexicalRank:      1,
	}, scoring.Weights{}) // zero value: the seed's weights
	fmt.Printf("score %.2f\n", c.Score)
	fmt.Printf("vector  %.2f × %.0f = %.2f\n", c.Vector.Normalized, c.Vector.Weight, c.Vector.Contribution)
	fmt.Printf("lexical %.2f × %.0f = %.2f\n", c.Lexical.Normalized, c.Lexical.Weight, c.Lexical.Contribution)
	fmt.Printf("pair    %.2f × %.0f = %.2f\n", c.Pair.Normalized, c.Pair.Weight, c.Pair.Contribution)
	fmt.Printf("ranks   %.2f + %.2f\n", c.VectorRank.Contribution, c.LexicalRank.Contribution)
	// Output:
	// score 13.50
	// vector  0.80 × 6 = 4.80
	// lexical 0.80 × 4 = 3.20
	// pair    1.00 × 4 = 4.00
	// ranks   0.50 + 1.00
}

func ExampleConfidence() {
	for _, avg := range []float64{0.92, 0.74, 0.61, 0.40} {
		l := scoring.Confidence(avg)
		fmt.Printf("%.2f %-6s augment=%v %s\n", avg, l, l.Augment(), l.Message())
	}
	// Output:
	// 0.92 high   augment=true [ALTA CONFIANÇA] Resposta baseada em documentos verificados
	// 0.74 medium augment=true [MÉDIA CONFIANÇA] Resposta parcialmente baseada em documentos
	// 0.61 low    augment=true [BAIXA CONFIANÇA] Informações limitadas encontradas
	// 0.40 none   augment=false [SEM RAG] Não encontrei informações específicas nos documentos
}

func ExampleNDCG() {
	// Judgements of one query (qrels): grade >= 1 is relevant.
	judged := map[string]int{"d1": 3, "d2": 2, "d3": 1}
	ranked := []string{"d2", "x", "d1", "d3"}
	fmt.Printf("nDCG@3 %.3f\n", scoring.NDCG(ranked, judged, 3))
	fmt.Printf("Recall@3 %.3f\n", scoring.Recall(ranked, judged, 3))
	fmt.Printf("MRR@3 %.3f\n", scoring.MRR(ranked, judged, 3))
	fmt.Printf("P@3 %.3f\n", scoring.Precision(ranked, judged, 3))
	// Output:
	// nDCG@3 0.735
	// Recall@3 0.667
	// MRR@3 1.000
	// P@3 0.667
}
