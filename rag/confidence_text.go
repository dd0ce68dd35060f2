package rag

import (
	"math"

	"github.com/hybridrag/hybridrag/scoring"
)

// confidenceMessage is the response's ConfidenceText for a level in
// lang: scoring.Level.Message (pt-BR) unless lang is
// LanguageEnglish, which gives the same messages in English.
func confidenceMessage(l scoring.Level, lang Language) string {
	if lang != LanguageEnglish {
		return l.Message()
	}
	switch l {
	case scoring.LevelHigh:
		return "[HIGH CONFIDENCE] Answer based on verified documents"
	case scoring.LevelMedium:
		return "[MEDIUM CONFIDENCE] Answer partly based on documents"
	case scoring.LevelLow:
		return "[LOW CONFIDENCE] Limited information found"
	}
	return "[NO RAG] No specific information found in the documents"
}

// mean returns the arithmetic mean of xs, or NaN when xs is empty.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
