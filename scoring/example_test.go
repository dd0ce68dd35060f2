package scoring_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/scoring"
)

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
