package scoring

import (
	"math"
	"testing"
)

func TestWeightsResolve(t *testing.T) {
	def := Weights{Vector: 6, Lexical: 4, Pair: 4, VectorRank: 1, LexicalRank: 1}
	if got := (Weights{}).Resolve(); got != def {
		t.Errorf("zero Weights resolve to %+v, want %+v", got, def)
	}
	got := Weights{Vector: 2, Lexical: Off, Pair: math.NaN()}.Resolve()
	want := Weights{Vector: 2, Lexical: 0, Pair: 0, VectorRank: 1, LexicalRank: 1}
	if got != want {
		t.Errorf("Resolve = %+v, want %+v", got, want)
	}
}
