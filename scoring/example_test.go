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

func ExampleThresholds_Level() {
	var th scoring.Thresholds // the defaults: high 0.85, medium 0.70, low 0.60
	for _, avg := range []float64{0.92, 0.74, 0.61, 0.40} {
		l := th.Level(avg)
		fmt.Printf("%.2f %-6s augment=%v %s\n", avg, l, l.Augment(), l.Message())
	}
	// Output:
	// 0.92 high   augment=true [ALTA CONFIANÇA] Resposta baseada em documentos verificados
	// 0.74 medium augment=true [MÉDIA CONFIANÇA] Resposta parcialmente baseada em documentos
	// 0.61 low    augment=true [BAIXA CONFIANÇA] Informações limitadas encontradas
	// 0.40 none   augment=false [SEM RAG] Não encontrei informações específicas nos documentos
}
