package scoring

import (
	"fmt"
	"math"
)

// Level is the confidence of a retrieval: how well what was retrieved can
// ground an answer, from the average similarity of the hits. Levels are
// ordered: LevelNone < LevelLow < LevelMedium < LevelHigh.
type Level int

// Confidence levels.
const (
	// LevelNone: no results or an average (similarity, or calibrated
	// relevance in the rag Pipeline) below the low threshold;
	// the prompt should not be augmented, since context that far from
	// the question invites an answer it does not support.
	LevelNone Level = iota
	// LevelLow: average >= 0.60 (BAIXA).
	LevelLow
	// LevelMedium: average >= 0.70 (MEDIA).
	LevelMedium
	// LevelHigh: average >= 0.85 (ALTA).
	LevelHigh
)

// Default thresholds on the average similarity (the rag Pipeline applies
// them to the calibrated relevance of what it cites). On cosine
// similarities of OpenAI-style embeddings, 0.85 is a near paraphrase, 0.70
// the same topic and 0.60 a related text; below that the text rarely holds
// the answer.
const (
	DefaultHighThreshold   = 0.85
	DefaultMediumThreshold = 0.70
	DefaultLowThreshold    = 0.60
)

// String returns "none", "low", "medium" or "high".
func (l Level) String() string {
	switch l {
	case LevelNone:
		return "none"
	case LevelLow:
		return "low"
	case LevelMedium:
		return "medium"
	case LevelHigh:
		return "high"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText encodes the level as its String, for JSON.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses the names printed by String.
func (l *Level) UnmarshalText(b []byte) error {
	for _, c := range []Level{LevelNone, LevelLow, LevelMedium, LevelHigh} {
		if string(b) == c.String() {
			*l = c
			return nil
		}
	}
	return fmt.Errorf("scoring: unknown confidence level %q", b)
}

// Message returns the pt-BR message for the level, to show beside an
// answer so the user knows how much of it rests on the store's records:
//
//	high:   [ALTA CONFIANÇA] Resposta baseada em documentos verificados
//	medium: [MÉDIA CONFIANÇA] Resposta parcialmente baseada em documentos
//	low:    [BAIXA CONFIANÇA] Informações limitadas encontradas
//	none:   [SEM RAG] Não encontrei informações específicas nos documentos
func (l Level) Message() string {
	switch l {
	case LevelHigh:
		return "[ALTA CONFIANÇA] Resposta baseada em documentos verificados"
	case LevelMedium:
		return "[MÉDIA CONFIANÇA] Resposta parcialmente baseada em documentos"
	case LevelLow:
		return "[BAIXA CONFIANÇA] Informações limitadas encontradas"
	}
	return "[SEM RAG] Não encontrei informações específicas nos documentos"
}

// Augment reports whether retrieved context should be added to the prompt:
// every level but LevelNone.
func (l Level) Augment() bool { return l > LevelNone }

// Thresholds are the minimum average similarities of each level. A zero
// field means that level's default; the zero value is the default
// configuration. Thresholds are expected in decreasing order
// High >= Medium >= Low.
type Thresholds struct {
	High, Medium, Low float64
}

// Level returns the highest level whose threshold avg reaches; NaN gives
// LevelNone.
func (t Thresholds) Level(avg float64) Level {
	def := func(v, d float64) float64 {
		if v == 0 {
			return d
		}
		return v
	}
	switch {
	case math.IsNaN(avg):
		return LevelNone
	case avg >= def(t.High, DefaultHighThreshold):
		return LevelHigh
	case avg >= def(t.Medium, DefaultMediumThreshold):
		return LevelMedium
	case avg >= def(t.Low, DefaultLowThreshold):
		return LevelLow
	}
	return LevelNone
}
