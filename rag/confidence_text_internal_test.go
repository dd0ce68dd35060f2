package rag

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/scoring"
)

func TestConfidenceMessage(t *testing.T) {
	for _, l := range []scoring.Level{scoring.LevelNone, scoring.LevelLow, scoring.LevelMedium, scoring.LevelHigh} {
		if got := confidenceMessage(l, LanguagePortuguese); got != l.Message() {
			t.Errorf("pt-BR %v = %q, want %q", l, got, l.Message())
		}
		en := confidenceMessage(l, LanguageEnglish)
		if en == l.Message() || !strings.HasPrefix(en, "[") {
			t.Errorf("English %v = %q", l, en)
		}
	}
	if got := confidenceMessage(scoring.LevelHigh, LanguageEnglish); got != "[HIGH CONFIDENCE] Answer based on verified documents" {
		t.Errorf("English high = %q", got)
	}
}

func TestMean(t *testing.T) {
	if !math.IsNaN(mean(nil)) {
		t.Error("mean(nil) is not NaN")
	}
	if m := mean([]float64{1, 2, 6}); m != 3 {
		t.Errorf("mean = %v", m)
	}
}
