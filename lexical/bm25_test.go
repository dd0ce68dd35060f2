package lexical

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// qa is a two-field record for the BM25 tests.
func qa(question, answer string) Fields {
	return Fields{{Name: "question", Text: question}, {Name: "answer", Text: answer}}
}

func bm25Scorer(p BM25) *Scorer {
	return NewScorer(ScorerOptions{
		Fields:   []FieldSpec{{Name: "question", Weight: 4}, {Name: "answer", Weight: 2}},
		Synonyms: noSynonyms,
		Weights:  Weights{Match: 0.5},
		Match:    MatchWordPrefix,
		BM25:     &p,
	})
}

// TestBM25WorkedExample checks the formula of the BM25 doc comment on
// hand-computed values: K1 1.2, B 0.75, Wmax 4, no IDF hook.
func TestBM25WorkedExample(t *testing.T) {
	s := bm25Scorer(BM25{AvgLengths: map[string]float64{"question": 4, "answer": 8}})
	sat := func(x float64) float64 { return 4 * 2.2 * x / (x + 1.2) }
	tests := []struct {
		name string
		rec  Fields
		want float64
	}{
		// Once in a question of average length: tf 1, the presence score.
		{"once in question of average length", qa("prazo de entrega final", ""), 4 + 0.5},
		// Once in an answer of average length: tf 2/4 = 0.5.
		{"once in answer of average length", qa("", "o prazo vai de maio a junho sempre"), sat(0.5) + 0.5},
		// Twice in the question: tf 2, more but less than twice.
		{"twice in question", qa("prazo e prazo final", ""), sat(2) + 0.5},
		// Once in a question twice as long: norm 1 - 0.75 + 0.75*2 = 1.75.
		{"once in a long question", qa("qual prazo de entrega final da declaracao anual", ""), sat(1/1.75) + 0.5},
		// In both fields: the tf add up before saturation.
		{"question and answer", qa("prazo de entrega final", "o prazo vai de maio a junho sempre"), sat(1.5) + 0.5},
		{"word prefix only", qa("aprazo", ""), 0},
		{"no match", qa("multa", "atraso"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sig := s.Prepare("prazo").Score(tt.rec)
			if !approx(got, tt.want) {
				t.Errorf("score = %v, want %v (%+v)", got, tt.want, sig.Breakdown)
			}
		})
	}
}

func TestBM25SaturatesAndNormalizes(t *testing.T) {
	s := bm25Scorer(BM25{AvgLengths: map[string]float64{"answer": 20}})
	q := s.Prepare("multa")
	short := q.ScoreOnly(qa("", "multa por atraso"))
	long := q.ScoreOnly(qa("", "multa por atraso "+strings.Repeat("texto longo sem o termo ", 20)))
	if !(long < short) {
		t.Errorf("long answer %v >= short answer %v", long, short)
	}
	prev := 0.0
	for n := 1; n <= 50; n *= 2 {
		got := q.ScoreOnly(qa("", strings.Repeat("multa ", n)))
		if !(got > prev) {
			t.Errorf("%d occurrences score %v, not above %v", n, got, prev)
		}
		if got > 4*2.2+0.5 {
			t.Errorf("%d occurrences score %v above the saturation bound", n, got)
		}
		prev = got
	}
	// B < 0: no length normalization.
	flat := bm25Scorer(BM25{B: -1, AvgLengths: map[string]float64{"answer": 20}}).Prepare("multa")
	if a, b := flat.ScoreOnly(qa("", "multa por atraso")), flat.ScoreOnly(qa("", "multa "+strings.Repeat("x ", 80))); !approx(a, b) {
		t.Errorf("B=-1: short %v, long %v, want equal", a, b)
	}
}

func TestBM25Proximity(t *testing.T) {
	s := bm25Scorer(BM25{Proximity: 0.5})
	q := s.Prepare("declaração anual")
	near, sigNear := q.Score(qa("declaracao anual de ajuste", ""))
	apart, sigApart := q.Score(qa("declaracao de ajuste do imposto sobre a renda anual", ""))
	reversed, sigRev := q.Score(qa("anual declaracao", ""))
	if sigNear.Breakdown.Proximity <= 0 {
		t.Errorf("adjacent pair earned no proximity: %+v", sigNear.Breakdown)
	}
	if sigApart.Breakdown.Proximity != 0 || sigRev.Breakdown.Proximity != 0 {
		t.Errorf("distant or reversed pair earned proximity: %+v %+v", sigApart.Breakdown, sigRev.Breakdown)
	}
	if !(near > apart) || !(near > reversed) {
		t.Errorf("near %v, apart %v, reversed %v", near, apart, reversed)
	}
	// Pair weight: 0.5 × mean IDF (1) × the saturated pair frequency (1).
	if want := 0.5 * 4; !approx(sigNear.Breakdown.Proximity, want) {
		t.Errorf("proximity = %v, want %v", sigNear.Breakdown.Proximity, want)
	}
	if !approx(near, sigNear.Breakdown.Total()) {
		t.Errorf("score %v != breakdown total %v", near, sigNear.Breakdown.Total())
	}
	for _, m := range sigNear.Matched {
		if m.TF != 1 {
			t.Errorf("term %q TF = %v, want 1", m.Term, m.TF)
		}
	}
}

func TestBM25Options(t *testing.T) {
	s := bm25Scorer(BM25{})
	p, ok := s.BM25()
	if !ok || p.K1 != defaultBM25K1 || p.B != defaultBM25B || p.Proximity != 0 {
		t.Fatalf("BM25() = %+v, %v", p, ok)
	}
	if _, ok := NewScorer(ScorerOptions{}).BM25(); ok {
		t.Error("presence scorer reports BM25")
	}
	w := s.WithAverageLengths(map[string]float64{"answer": 7})
	if p, _ := w.BM25(); p.AvgLengths["answer"] != 7 {
		t.Errorf("WithAverageLengths: %+v", p)
	}
	if p, _ := s.BM25(); len(p.AvgLengths) != 0 {
		t.Errorf("WithAverageLengths changed the original: %+v", p)
	}
	presence := NewScorer(ScorerOptions{})
	if presence.WithAverageLengths(map[string]float64{"x": 1}) != presence {
		t.Error("WithAverageLengths copied a scorer without BM25")
	}
	bad := []BM25{
		{K1: -1}, {K1: math.NaN()}, {B: 2}, {B: math.NaN()}, {Proximity: -1},
		{AvgLengths: map[string]float64{"answer": math.Inf(1)}},
	}
	for _, p := range bad {
		err := ScorerOptions{BM25: &p}.Validate()
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Validate(%+v) = %v", p, err)
		}
		// NewScorer corrects instead and never yields NaN scores.
		got := NewScorer(ScorerOptions{BM25: &p, Fields: []FieldSpec{{Name: "answer", Weight: 1}}}).Prepare("soja").ScoreOnly(Fields{{Name: "answer", Text: "soja soja"}})
		if math.IsNaN(got) || math.IsInf(got, 0) || got <= 0 {
			t.Errorf("NewScorer(%+v) score %v", p, got)
		}
	}
	if err := (ScorerOptions{BM25: &BM25{K1: 2, B: -1, Proximity: 1}}).Validate(); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

func TestVocabularyFieldLengths(t *testing.T) {
	var b VocabularyBuilder
	b.AddRecord(qa("Qual o prazo?", "O prazo termina em maio."))
	b.AddRecord(Fields{{Name: "question", Text: "Multa por atraso na entrega"}})
	v := b.Build()
	if got := v.avgFieldWords("question"); got != (3+5)/2.0 {
		t.Errorf("question average = %v", got)
	}
	if got := v.avgFieldWords("answer"); got != 5/2.0 {
		t.Errorf("answer average = %v", got)
	}
	if got := v.avgFieldWords("title"); got != 0 {
		t.Errorf("unseen field average = %v", got)
	}
	if got := v.DocFreq("prazo"); got != 1 {
		t.Errorf("DocFreq(prazo) = %d, want 1 (once per record)", got)
	}
	all := v.AvgFieldWordsAll()
	if len(all) != 2 || all["question"] != 4 {
		t.Errorf("AvgFieldWordsAll = %v", all)
	}
	var nilV *Vocabulary
	if nilV.avgFieldWords("x") != 0 || nilV.AvgFieldWordsAll() != nil {
		t.Error("nil vocabulary has field lengths")
	}
}
