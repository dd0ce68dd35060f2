package lexical

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// noSynonyms scores without synonym bonuses, to test field weights alone.
var noSynonyms = &Synonyms{}

func TestScoreFieldWeights(t *testing.T) {
	tests := []struct {
		name  string
		query string
		rec   Record
		want  float64
	}{
		{"one term in name", "soja", productRecord{Name: "Soja Max"}, 3.5 + 0.5},
		{"one term in two fields", "soja", productRecord{Name: "Soja Max", Description: "para soja"}, 3.5 + 2.5 + 0.5},
		{"two terms", "soja milho", productRecord{Name: "Soja", Description: "milho e soja"}, (3.5 + 2.5 + 0.5) + (2.5 + 0.5)},
		{"all fields", "xyz", productRecord{Name: "xyz", Description: "xyz", Category: "xyz", Manufacturer: "xyz", Tags: []string{"xyz"}}, 3.5 + 2.5 + 2 + 1.5 + 4 + 0.5},
		{"two tags earn the tag weight once", "soja", productRecord{Tags: []string{"Soja", "Soja OGM"}}, 4 + 0.5},
		{"substring like ILIKE", "cida", productRecord{Category: "Fungicida"}, 2 + 0.5},
		{"accents and case ignored", "acucar", productRecord{Tags: []string{"Cana-de-AÇÚCAR"}}, 4 + 0.5},
		{"no match", "trigo", productRecord{Name: "Soja"}, 0},
		{"unknown field ignored", "soja", Fields{{Name: "notes", Text: "soja"}}, 0},
		{"document with agronomy names", "soja", Fields{{Name: FieldTags, Text: "soja"}, {Name: FieldName, Text: "x"}}, 4 + 0.5},
		{"empty record", "soja", Fields{}, 0},
		{"nil record", "soja", nil, 0},
	}
	s := NewScorer(ScorerOptions{Synonyms: noSynonyms})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := s.Prepare(tt.query)
			got, sig := q.Score(tt.rec)
			if !approx(got, tt.want) {
				t.Errorf("score = %v, want %v (signals %+v)", got, tt.want, sig)
			}
			if only := q.ScoreOnly(tt.rec); only != got {
				t.Errorf("ScoreOnly = %v, Score = %v", only, got)
			}
			if sig.Breakdown.Total() != got {
				t.Errorf("breakdown total %v, score %v", sig.Breakdown.Total(), got)
			}
		})
	}
}

func TestScoreBonuses(t *testing.T) {
	grapeFungicide := productRecord{Name: "Fungiprot", Description: "Fungicida sistêmico para controle de míldio", Category: "Fungicida", Tags: []string{"Uva", "Tomate"}}
	tests := []struct {
		name           string
		query          string
		rec            productRecord
		wantCultures   []string
		wantTreatments []string
		wantPair       bool
		wantInTag      bool
		wantBonus      float64
	}{
		{"subject and class, subject in tag", "fungicida para uva", grapeFungicide, []string{"uva"}, []string{"fungicida"}, true, true, 2 + 2 + 5 + 1},
		{"lay words reach both", "remédio pra fungo na videira", grapeFungicide, []string{"uva"}, []string{"fungicida"}, true, true, 2 + 2 + 5 + 1},
		{"class through a record variant", "oídio", productRecord{Description: "controle do míldio"}, nil, []string{"fungicida"}, false, false, 2},
		{"subject outside tags", "uva", productRecord{Description: "Registrado para videiras"}, []string{"uva"}, nil, false, false, 2},
		{"subject only in tag", "parreira", productRecord{Tags: []string{"Uva"}}, []string{"uva"}, nil, false, true, 2 + 1},
		{"query names no crop", "fungicida", grapeFungicide, nil, []string{"fungicida"}, false, false, 2},
		{"record lacks the query crop", "fungicida para soja", grapeFungicide, nil, []string{"fungicida"}, false, false, 2},
		{"whole words: mato is not in tomate", "mato no tomate", productRecord{Tags: []string{"Tomate"}}, []string{"tomate"}, nil, false, true, 2 + 1},
		{"whole words: uva is not in chuva", "uva", productRecord{Description: "resistente à chuva"}, nil, nil, false, false, 0},
		{"two subjects one bonus", "soja e milho", productRecord{Tags: []string{"Soja", "Milho"}}, []string{"soja", "milho"}, nil, false, true, 2 + 1},
		{"multi-word variant in record", "mato na cana", productRecord{Description: "controle de plantas daninhas em canaviais"}, []string{"cana-de-açúcar"}, []string{"herbicida"}, true, false, 2 + 2 + 5},
	}
	s := NewScorer(ScorerOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := s.Prepare(tt.query)
			_, sig := q.Score(&tt.rec)
			if !slices.Equal(sig.Subjects, tt.wantCultures) {
				t.Errorf("subjects = %q, want %q", sig.Subjects, tt.wantCultures)
			}
			if !slices.Equal(sig.Classes, tt.wantTreatments) {
				t.Errorf("classes = %q, want %q", sig.Classes, tt.wantTreatments)
			}
			if sig.Pair != tt.wantPair || sig.SubjectInTag != tt.wantInTag {
				t.Errorf("pair = %v, in tag = %v; want %v, %v", sig.Pair, sig.SubjectInTag, tt.wantPair, tt.wantInTag)
			}
			b := sig.Breakdown
			if got := b.Subject + b.Class + b.Pair + b.SubjectInTag; !approx(got, tt.wantBonus) {
				t.Errorf("bonus = %v, want %v (%+v)", got, tt.wantBonus, b)
			}
		})
	}
}

func TestScoreSynonymTermsMatch(t *testing.T) {
	s := NewScorer(ScorerOptions{})
	q := s.Prepare("remédio pra fungo na videira")
	if got, want := q.Terms(), []string{"remedio", "fungo", "videira", "fungicida", "uva"}; !slices.Equal(got, want) {
		t.Fatalf("terms = %q, want %q", got, want)
	}
	rec := productRecord{Name: "Fungiprot", Category: "Fungicida", Tags: []string{"Uva"}}
	_, sig := q.Score(&rec)
	want := []TermMatch{
		{Term: "fungicida", Fields: []string{FieldCategory}, Synonym: true, IDF: 1},
		{Term: "uva", Fields: []string{FieldTags}, Synonym: true, IDF: 1},
	}
	if !slices.EqualFunc(sig.Matched, want, termMatchEqual) {
		t.Errorf("matched = %+v, want %+v", sig.Matched, want)
	}
	if used := q.Expansions(); len(used) != 2 || used[0].Text != "fungo" || used[1].Text != "videira" {
		t.Errorf("synonyms used = %+v", used)
	}
}

func termMatchEqual(a, b TermMatch) bool {
	return a.Term == b.Term && slices.Equal(a.Fields, b.Fields) && a.Synonym == b.Synonym && a.IDF == b.IDF
}

func TestScoreWeightsOptions(t *testing.T) {
	rec := productRecord{Category: "Fungicida", Tags: []string{"Uva"}}
	tests := []struct {
		name string
		opts ScorerOptions
		want float64
	}{
		{"zero weights mean defaults", ScorerOptions{}, (2 + 0.5) + (4 + 0.5) + 2 + 2 + 5 + 1},
		{"pair bonus off", ScorerOptions{Weights: Weights{Pair: off}}, (2 + 0.5) + (4 + 0.5) + 2 + 2 + 1},
		{"zero fields mean their defaults", ScorerOptions{Weights: Weights{Pair: 7}}, (2 + 0.5) + (4 + 0.5) + 2 + 2 + 7 + 1},
		{"every bonus off", ScorerOptions{Weights: Weights{Match: off, Subject: off, Class: -2, Pair: off, SubjectInTag: off}}, 2 + 4},
		{"custom field weights", ScorerOptions{Fields: []FieldSpec{{Name: FieldCategory, Weight: 10}, {Name: FieldTags, Weight: 1}}}, (10 + 0.5) + (1 + 0.5) + 2 + 2 + 5},
		{"tag flag off", ScorerOptions{Fields: []FieldSpec{{Name: FieldCategory, Weight: 2}, {Name: FieldTags, Weight: 4}}}, (2 + 0.5) + (4 + 0.5) + 2 + 2 + 5},
		{"invalid weights become zero", ScorerOptions{Fields: []FieldSpec{{Name: FieldCategory, Weight: math.NaN()}, {Name: FieldTags, Weight: -1, Tags: true}}}, 0.5 + 0.5 + 2 + 2 + 5 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewScorer(tt.opts).Prepare("fungicida uva")
			got, sig := q.Score(&rec)
			if !approx(got, tt.want) {
				t.Errorf("score = %v, want %v (%+v)", got, tt.want, sig.Breakdown)
			}
		})
	}
}

func TestScoreWithIDF(t *testing.T) {
	rec := productRecord{Category: "Fungicida", Tags: []string{"Uva"}}
	q := NewScorer(ScorerOptions{}).WithIDF(func(term string) float64 {
		if term == "uva" {
			return 2
		}
		return math.Inf(1) // non-finite counts as 0
	}).Prepare("fungicida uva")
	if got, sig := q.Score(&rec); !approx(got, 0+2*(4+0.5)+2+2+5+1) {
		t.Errorf("score = %v (%+v)", got, sig.Breakdown)
	}
}

func TestIDFCalledOncePerTermAtPrepare(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	s := NewScorer(ScorerOptions{}).WithIDF(func(term string) float64 {
		mu.Lock()
		defer mu.Unlock()
		calls[term]++
		return 1.5
	})
	q := s.Prepare("fungo na videira")
	for range 3 {
		q.ScoreOnly(&productRecord{Name: "fungo"})
	}
	want := map[string]int{"fungo": 1, "videira": 1, "fungicida": 1, "uva": 1}
	if len(calls) != len(want) {
		t.Fatalf("IDF calls = %v, want %v", calls, want)
	}
	for k, v := range want {
		if calls[k] != v {
			t.Errorf("IDF(%q) called %d times, want %d", k, calls[k], v)
		}
	}
	_, sig := q.Score(&productRecord{Name: "fungo"})
	if len(sig.Matched) != 1 || sig.Matched[0].IDF != 1.5 || !approx(sig.Breakdown.Total(), 1.5*(3.5+0.5)+2) {
		t.Errorf("signals = %+v", sig)
	}
}

func TestScoreMatchModes(t *testing.T) {
	rec := productRecord{Description: "resistente à chuva; uvas finas"}
	tests := []struct {
		mode MatchMode
		want []string
	}{
		{MatchSubstring, []string{FieldDescription}},
		{MatchWordPrefix, []string{FieldDescription}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			q := NewScorer(ScorerOptions{Match: tt.mode, Synonyms: noSynonyms}).Prepare("uva")
			_, sig := q.Score(&rec)
			if len(sig.Matched) != 1 || !slices.Equal(sig.Matched[0].Fields, tt.want) {
				t.Errorf("matched = %+v", sig.Matched)
			}
		})
	}
	onlyRain := productRecord{Description: "resistente à chuva"}
	sub := NewScorer(ScorerOptions{Synonyms: noSynonyms}).Prepare("uva").ScoreOnly(&onlyRain)
	word := NewScorer(ScorerOptions{Synonyms: noSynonyms, Match: MatchWordPrefix}).Prepare("uva").ScoreOnly(&onlyRain)
	if sub == 0 || word != 0 {
		t.Errorf("substring score %v (want > 0), word-prefix score %v (want 0)", sub, word)
	}
	if got := MatchMode(7).String(); got != "MatchMode(7)" {
		t.Errorf("String = %q", got)
	}
}

func TestScoreWithStemming(t *testing.T) {
	s := NewScorer(ScorerOptions{Tokenizer: Tokenizer{Filters: []TokenFilter{StemFilter{}}}})
	q := s.Prepare("fungicidas contra pulgões")
	if got, want := q.Terms(), []string{"fungicida", "contra", "pulg", "inseticida"}; !slices.Equal(got, want) {
		t.Fatalf("terms = %q, want %q", got, want)
	}
	rec := productRecord{Name: "Fungicida e Inseticida X", Description: "controle do pulgão"}
	_, sig := q.Score(&rec)
	var matched []string
	for _, m := range sig.Matched {
		matched = append(matched, m.Term)
	}
	if !slices.Equal(matched, []string{"fungicida", "pulg", "inseticida"}) {
		t.Errorf("matched = %q", matched)
	}
	if !slices.Equal(sig.Classes, []string{"fungicida", "inseticida"}) {
		t.Errorf("classes = %q", sig.Classes)
	}
}

func TestScoreFallbackQuery(t *testing.T) {
	q := NewScorer(ScorerOptions{}).Prepare("o que é isso")
	if !q.Fallback() || !slices.Equal(q.Tokens(), []string{"o que e isso"}) {
		t.Fatalf("tokens %q fallback %v", q.Tokens(), q.Fallback())
	}
	got, sig := q.Score(&productRecord{Description: "Saiba o que é isso e mais"})
	if !approx(got, 2.5+0.5) || sig.Breakdown.Fields != 2.5 {
		t.Errorf("score %v signals %+v", got, sig)
	}
	empty := NewScorer(ScorerOptions{}).Prepare("   ")
	if got := empty.ScoreOnly(&productRecord{Name: "x"}); got != 0 {
		t.Errorf("empty query scored %v", got)
	}
}

func TestScoreCapsTerms(t *testing.T) {
	var words []string
	for i := range 100 {
		words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	s := NewScorer(ScorerOptions{Tokenizer: Tokenizer{MaxTokens: -1}})
	q := s.Prepare(strings.Join(words, " "))
	if n := len(q.Terms()); n != maxTerms {
		t.Fatalf("terms = %d, want %d", n, maxTerms)
	}
	rec := Fields{{Name: FieldName, Text: strings.Join(words, " ")}}
	if got := q.ScoreOnly(rec); !approx(got, maxTerms*(3.5+0.5)) {
		t.Errorf("score = %v", got)
	}
}

func TestNewScorerFields(t *testing.T) {
	var many []FieldSpec
	for i := range 70 {
		many = append(many, FieldSpec{Name: "f" + string(rune('A'+i)), Weight: 1})
	}
	tests := []struct {
		name   string
		fields []FieldSpec
		want   []string
	}{
		{"default", nil, []string{FieldName, FieldDescription, FieldCategory, FieldManufacturer, FieldTags}},
		{"drops empty and repeated names", []FieldSpec{{Name: "q", Weight: 1}, {Name: ""}, {Name: "q", Weight: 9}, {Name: "a", Weight: 1}}, []string{"q", "a"}},
		{"keeps 64", many, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewScorer(ScorerOptions{Fields: tt.fields}).fieldSpecs()
			if tt.want == nil {
				if len(got) != maxFields {
					t.Errorf("%d fields kept, want %d", len(got), maxFields)
				}
				return
			}
			var names []string
			for _, f := range got {
				names = append(names, f.Name)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("fields = %q, want %q", names, tt.want)
			}
		})
	}
	s := NewScorer(ScorerOptions{})
	if s.weights != defaultWeights() || s.Synonyms() != DefaultSynonyms() || s.Tokenizer().MaxTokens != 0 {
		t.Error("accessors do not report the defaults")
	}
	if NewScorer(ScorerOptions{Match: 9}).match != MatchSubstring {
		t.Error("unknown match mode must fall back to substring")
	}
}

func TestScorerOptionsValidate(t *testing.T) {
	var many []FieldSpec
	for i := range 65 {
		many = append(many, FieldSpec{Name: "f" + string(rune('A'+i)), Weight: 1})
	}
	tests := []struct {
		name    string
		opts    ScorerOptions
		wantErr string
	}{
		{"zero value", ScorerOptions{}, ""},
		{"defaults spelled out", ScorerOptions{Fields: ProductFields(), Weights: defaultWeights()}, ""},
		{"empty name", ScorerOptions{Fields: []FieldSpec{{Weight: 1}}}, "no name"},
		{"repeated name", ScorerOptions{Fields: []FieldSpec{{Name: "a"}, {Name: "a"}}}, "declared twice"},
		{"negative field weight", ScorerOptions{Fields: []FieldSpec{{Name: "a", Weight: -1}}}, "weight -1"},
		{"NaN bonus", ScorerOptions{Weights: Weights{Pair: math.NaN()}}, "Pair is NaN"},
		{"bonus off", ScorerOptions{Weights: Weights{Pair: off}}, ""},
		{"infinite bonus", ScorerOptions{Weights: Weights{Match: math.Inf(1)}}, "Match is +Inf"},
		{"too many fields", ScorerOptions{Fields: many}, "65 fields"},
		{"match mode", ScorerOptions{Match: 3}, "unknown match mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want ErrInvalidOptions containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestPreparedQueryAccessorsCopy(t *testing.T) {
	q := NewScorer(ScorerOptions{}).Prepare("fungo na videira")
	if q.queryText() != "fungo na videira" {
		t.Errorf("Query = %q", q.queryText())
	}
	toks := q.Tokens()
	toks[0] = "x"
	terms := q.Terms()
	terms[0] = "x"
	ms := q.Mentions()
	ms[0].Term = "x"
	ex := q.Expansions()
	ex[0].Term = "x"
	if q.Tokens()[0] != "fungo" || q.Terms()[0] != "fungo" || q.Mentions()[0].Term != "fungicida" || q.Expansions()[0].Term != "fungicida" {
		t.Error("accessors must return copies")
	}
}

func TestScoreOnlyDoesNotAllocate(t *testing.T) {
	q := NewScorer(ScorerOptions{}).Prepare("fungicida para videira contra míldio")
	rec := productRecord{
		Name:         "fungiprot 250 ec",
		Description:  "fungicida sistemico do grupo das estrobilurinas para controle de mildio e oidio da videira",
		Category:     "fungicida",
		Manufacturer: "agro quimica s.a.",
		Tags:         []string{"uva", "tomate", "batata"},
	}
	allocs := testing.AllocsPerRun(100, func() {
		if q.ScoreOnly(&rec) == 0 {
			t.Fatal("no score")
		}
	})
	if allocs != 0 {
		t.Errorf("ScoreOnly allocated %.1f times per record", allocs)
	}
}

func TestPreparedQueryConcurrentUse(t *testing.T) {
	q := NewScorer(ScorerOptions{}).Prepare("fungicida para videira")
	rec := productRecord{Name: "Fungiprot", Category: "Fungicida", Tags: []string{"Uva"}}
	want, _ := q.Score(&rec)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got, sig := q.Score(&rec); got != want || !sig.Pair {
					t.Errorf("score %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestNormalizedFieldsScoreAsFields checks that a record scored from
// its NormalizeRecord form gets the same score and signals as raw.
func TestNormalizedFieldsScoreAsFields(t *testing.T) {
	s := NewScorer(ScorerOptions{})
	raw := Fields{{Name: "name", Text: "Fungicida CÚPRICO"}, {Name: "description", Text: "Controle da ferrugem-asiática\nna SOJA e no café"}, {Name: "tags", Text: "Orgânico"}}
	for _, q := range []string{"fungicida para soja", "ferrugem asiatica cafe", "cuprico organico", "herbicida"} {
		pq := s.Prepare(q)
		a, sa := pq.Score(raw)
		b, sb := pq.Score(NormalizeRecord(raw))
		if a != b || !reflect.DeepEqual(sa, sb) {
			t.Errorf("%q: raw %v %+v, normalized %v %+v", q, a, sa, b, sb)
		}
	}
}

// off switches a bonus off.
const off = -1.0
