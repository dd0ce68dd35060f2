package scoring

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestConfidence(t *testing.T) {
	tests := []struct {
		avg  float64
		want Level
	}{
		{1, LevelHigh},
		{0.85, LevelHigh},
		{0.8499, LevelMedium},
		{0.70, LevelMedium},
		{0.6999, LevelLow},
		{0.60, LevelLow},
		{0.5999, LevelNone},
		{0, LevelNone},
		{-1, LevelNone},
		{math.NaN(), LevelNone},
	}
	for _, tt := range tests {
		t.Run(tt.want.String(), func(t *testing.T) {
			if got := (Thresholds{}).Level(tt.avg); got != tt.want {
				t.Errorf("default Level(%v) = %v, want %v", tt.avg, got, tt.want)
			}
		})
	}
}

func TestThresholds(t *testing.T) {
	th := Thresholds{High: 0.5, Medium: 0.3, Low: 0.1}
	for _, tt := range []struct {
		avg  float64
		want Level
	}{{0.5, LevelHigh}, {0.4, LevelMedium}, {0.1, LevelLow}, {0.05, LevelNone}} {
		if got := th.Level(tt.avg); got != tt.want {
			t.Errorf("Level(%v) = %v, want %v", tt.avg, got, tt.want)
		}
	}
	// Partially set: Low customized, others default.
	if got := (Thresholds{Low: 0.4}).Level(0.45); got != LevelLow {
		t.Errorf("Level = %v, want low", got)
	}
}

func TestLevelMessagesAndText(t *testing.T) {
	tests := []struct {
		l       Level
		name    string
		prefix  string
		augment bool
	}{
		{LevelHigh, "high", "[ALTA CONFIANÇA]", true},
		{LevelMedium, "medium", "[MÉDIA CONFIANÇA]", true},
		{LevelLow, "low", "[BAIXA CONFIANÇA]", true},
		{LevelNone, "none", "[SEM RAG]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.l.String() != tt.name {
				t.Errorf("String = %q", tt.l.String())
			}
			if !strings.HasPrefix(tt.l.Message(), tt.prefix) {
				t.Errorf("Message = %q, want prefix %q", tt.l.Message(), tt.prefix)
			}
			if tt.l.Augment() != tt.augment {
				t.Errorf("Augment = %v", tt.l.Augment())
			}
			b, err := json.Marshal(tt.l)
			if err != nil || string(b) != `"`+tt.name+`"` {
				t.Fatalf("json = %s, %v", b, err)
			}
			var back Level
			if err := json.Unmarshal(b, &back); err != nil || back != tt.l {
				t.Errorf("round trip = %v, %v", back, err)
			}
		})
	}
	var l Level
	if err := l.UnmarshalText([]byte("alta")); err == nil {
		t.Error("UnmarshalText(alta) succeeded")
	}
	if s := Level(7).String(); s != "Level(7)" {
		t.Errorf("String = %q", s)
	}
}
