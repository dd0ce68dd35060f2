package rag

import (
	"math"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/lexical/snowball"
	"github.com/hybridrag/hybridrag/rag/fields"
	"github.com/hybridrag/hybridrag/rag/internal/fieldname"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
)

func TestBackgroundOfWorkedExample(t *testing.T) {
	// Rows [1 0], [0 1], [0.6 0.8] against q = [1 0]: similarities 1, 0
	// and 0.6; median 0.6; absolute deviations 0.4, 0.6, 0 → MAD 0.4;
	// 95th percentile (nearest rank) 1; scale 1 − 0.6.
	c := &calibration{rows: []float32{1, 0, 0, 1, 0.6, 0.8}, dims: 2, n: 3}
	bg := backgroundOf([]float32{1, 0}, c)
	if bg == nil || bg.Samples != 3 {
		t.Fatalf("background = %+v", bg)
	}
	if math.Abs(bg.Median-0.6) > 1e-6 || math.Abs(bg.P95-1) > 1e-6 || math.Abs(bg.Scale()-0.4) > 1e-6 {
		t.Errorf("median %v p95 %v scale %v, want 0.6, 1 and 0.4", bg.Median, bg.P95, bg.Scale())
	}
	if backgroundOf([]float32{1, 0, 0}, c) != nil {
		t.Error("a query of other dimensions got a background")
	}
	if backgroundOf([]float32{1, 0}, nil) != nil {
		t.Error("no sample gave a background")
	}
	// All equal similarities: the scale is floored, so z stays finite.
	flat := &calibration{rows: []float32{1, 0, 1, 0}, dims: 2, n: 2}
	if bg := backgroundOf([]float32{1, 0}, flat); bg.Scale() != minScale {
		t.Errorf("flat scale = %v, want %v", bg.Scale(), minScale)
	}
}

// TestEvidenceWorkedExamples checks the fusion arithmetic on hand-built
// queries: two concepts of weights 1 and 3, with and without the pair.
func TestEvidenceWorkedExamples(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{
		concepts: []queryConcept{
			{label: "fungicida", direct: []string{"fungicida"}, treatment: true, weight: 1, raw: 1},
			{label: "videira", direct: []string{"videira"}, class: []string{"uva"}, culture: true, weight: 3, raw: 3, rare: true},
		},
		pairAsked: true, maxRaw: 3,
		bg: &Background{Median: 0.05, P95: 0.09, Samples: 100},
	}
	tests := []struct {
		name     string
		sig      *lexical.Signals
		vec      *VectorEvidence
		relevant bool
		reason   EvidenceReason
		coverage float64
		rel      float64
	}{
		{
			name: "both concepts, pair",
			sig: &lexical.Signals{Pair: true, Matched: []lexical.TermMatch{
				{Term: "fungicida", Fields: []string{"category"}}, {Term: "uva", Fields: []string{"tags"}, Synonym: true}}},
			relevant: true, reason: ReasonCovered, coverage: 1, rel: 1,
		},
		{
			// Coverage 1/4; lexical 0.25^1.5 = 0.125; vector z = (0.2 −
			// 0.05)/0.04 = 3.75 → 1/(1+e^(−(3.75−3)/0.75)) = 0.7311;
			// relevance 1 − 0.875 × 0.2689 = 0.7647, but the pair is
			// missing: capped at 0.75 × 0.6 = 0.45.
			name:     "treatment only, close vector, missing pair",
			sig:      &lexical.Signals{Matched: []lexical.TermMatch{{Term: "fungicida", Fields: []string{"category"}}}},
			vec:      &VectorEvidence{Similarity: 0.2},
			relevant: false, reason: ReasonMissingPair, coverage: 0.25, rel: 0.45,
		},
		{
			name:     "nothing",
			sig:      &lexical.Signals{},
			relevant: false, reason: ReasonNoEvidence, coverage: 0, rel: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := eq.evidenceFor(tt.sig, tt.vec, lexical.FieldName, &o)
			if ev.Relevant != tt.relevant || ev.Reason != tt.reason {
				t.Errorf("relevant %v reason %q, want %v %q (%+v)", ev.Relevant, ev.Reason, tt.relevant, tt.reason, ev)
			}
			if math.Abs(ev.Coverage-tt.coverage) > 1e-9 || math.Abs(ev.Relevance-tt.rel) > 1e-6 {
				t.Errorf("coverage %v relevance %v, want %v %v", ev.Coverage, ev.Relevance, tt.coverage, tt.rel)
			}
		})
	}

	// Without the pair rule: the same treatment-only hit with its close
	// vector holds a quarter of the content, below minVectorCoverage, so
	// its vector alone does not make it relevant (capped at 0.45).
	eq.pairAsked = false
	ev := eq.evidenceFor(tests[1].sig, tests[1].vec, lexical.FieldName, &o)
	if ev.Relevant || ev.Reason != ReasonPartial || math.Abs(ev.Relevance-0.45) > 1e-6 {
		t.Errorf("no pair asked, coverage 0.25: %+v, want relevance 0.45, partial", ev)
	}
	// With fungicida weighing 2 of 5 (coverage 0.4, lexical 0.4^1.5 =
	// 0.253) the close vector makes it relevant.
	eq.concepts[0].weight, eq.concepts[0].raw = 2, 2
	ev = eq.evidenceFor(tests[1].sig, tests[1].vec, lexical.FieldName, &o)
	want := 1 - (1-math.Pow(0.4, 1.5))*(1-logistic((3.75-3)/0.75))
	if !ev.Relevant || ev.Reason != ReasonVector || math.Abs(ev.Relevance-want) > 1e-6 {
		t.Errorf("no pair asked, coverage 0.4: %+v, want relevance %v via vector", ev, want)
	}
	eq.concepts[0].weight, eq.concepts[0].raw = 1, 1

	// A named item: its name holds the rarest concept (videira, via uva,
	// a rare one), so lexical evidence is at least the threshold.
	eq.concepts = append(eq.concepts, queryConcept{label: "dose", direct: []string{"dose"}, weight: 2, raw: 2})
	named := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "uva", Fields: []string{"name"}}}}
	ev = eq.evidenceFor(named, nil, lexical.FieldName, &o)
	if !ev.Named || !ev.Relevant || ev.Reason != ReasonNamed {
		t.Errorf("named: %+v", ev)
	}
}

func TestAnalyzeEvidenceGroupsConcepts(t *testing.T) {
	s := lexical.NewScorer(lexical.ScorerOptions{})
	idf := func(term string) float64 {
		return map[string]float64{"fungicida": 1, "uva": 1.5, "cana-de-acucar": 2, "cana": 2.5, "acucar": 2.5}[term] + 0
	}
	tests := []struct {
		query  string
		labels []string
		pair   bool
	}{
		{"vocês vendem fungicida para videira?", []string{"videira", "fungicida"}, true},
		{"herbicida pra cana-de-açúcar", []string{"herbicida", "cana-de-acucar"}, true},
		{"quanto custa o produto?", nil, false},
		{"asdkjh qwpoeiru", []string{"asdkjh", "qwpoeiru"}, false},
		// An English word whose translation frames a request ("carry"
		// as "vender") frames it: the gloves are what is asked.
		{"do you carry gloves for my workers?", []string{"gloves", "workers"}, false},
	}
	frame := textutil.FrameSet(defaultFrameWords)
	for _, tt := range tests {
		eq := analyzeEvidence(s.Prepare(tt.query), s.Synonyms(), s.Tokenizer().Filters, func(t string) float64 { return max(idf(t), 1) }, nil, 0, frame, nil)
		var labels []string
		for _, c := range eq.concepts {
			labels = append(labels, c.label)
		}
		if len(labels) != len(tt.labels) || eq.pairAsked != tt.pair {
			t.Errorf("%q: concepts %v pair %v, want %v %v", tt.query, labels, eq.pairAsked, tt.labels, tt.pair)
			continue
		}
		for _, l := range tt.labels {
			found := false
			for _, g := range labels {
				found = found || g == l
			}
			if !found {
				t.Errorf("%q: concepts %v, want %v", tt.query, labels, tt.labels)
			}
		}
	}
}

func TestFocusOnCoveredAndNamed(t *testing.T) {
	ev := func(cov float64, missing ...string) *Evidence {
		return &Evidence{Coverage: cov, Relevant: true, Relevance: 0.9, Missing: missing}
	}
	r := &searchResults{
		faqs: []Hit[storage.FAQ]{{ID: "complete", Evidence: ev(1)}, {ID: "partial", Evidence: ev(0.6, "calda")}},
		docs: []Hit[storage.Document]{{ID: "doc-close", Evidence: ev(0.8)}, {ID: "doc-far", Evidence: ev(0.5)}},
	}
	focusOnCovered(r, 0.3)
	if len(r.faqs) != 1 || r.faqs[0].ID != "complete" || len(r.docs) != 1 || r.docs[0].ID != "doc-close" {
		t.Errorf("after focusOnCovered: faqs %v docs %v", r.faqs, r.docs)
	}
	// A complete document alone does not set the bar.
	r = &searchResults{
		faqs: []Hit[storage.FAQ]{{ID: "paraphrase", Evidence: ev(0.5)}},
		docs: []Hit[storage.Document]{{ID: "long", Evidence: ev(1)}},
	}
	focusOnCovered(r, 0.3)
	if len(r.faqs) != 1 {
		t.Errorf("a long document dropped the FAQ: %v", r.faqs)
	}
	// A named item drops the FAQs and documents lacking its name.
	r = &searchResults{
		catalog: []Hit[storage.CatalogItem]{{ID: "prd-003", Evidence: &Evidence{Named: true, Name: "tebucor", Relevant: true}}},
		faqs:    []Hit[storage.FAQ]{{ID: "faq-016", Evidence: ev(0.5, "tebucor")}, {ID: "faq-x", Evidence: ev(0.9)}},
	}
	focusOnNamed(r)
	if len(r.faqs) != 1 || r.faqs[0].ID != "faq-x" {
		t.Errorf("after focusOnNamed: faqs %v", r.faqs)
	}
}

// TestEvidencePairLacksOnlyUnknownWords: a record holding the culture and
// the treatment asked is relevant when every concept it lacks is a word
// no record of its kind holds, not when it lacks a word of the store.
func TestEvidencePairLacksOnlyUnknownWords(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	concepts := func(last queryConcept) *evidenceQuery {
		return &evidenceQuery{pairAsked: true, concepts: []queryConcept{
			{label: "pulgao", direct: []string{"pulgao"}, treatment: true, weight: 0.5, raw: 0.5, own: true},
			{label: "trigo", direct: []string{"trigo"}, culture: true, weight: 0.5, raw: 0.5, own: true},
			last,
		}}
	}
	sig := &lexical.Signals{Pair: true, Matched: []lexical.TermMatch{
		{Term: "pulgao", Fields: []string{"files"}}, {Term: "trigo", Fields: []string{"tags"}}}}
	unknown := concepts(queryConcept{label: "espigas", direct: []string{"espigas"}, weight: 1, raw: 1, own: true, unknown: true})
	if ev := unknown.evidenceFor(sig, nil, lexical.FieldName, &o); !ev.Relevant || ev.Lexical < o.Threshold {
		t.Errorf("pair held, only an unknown word missing: %+v, want relevant", ev)
	}
	// A word of the store missing: relevant as a described problem when
	// the pest is held by its own word (and, in a Searcher, on one line
	// with the crop), however much of the question the rest weighs; not
	// when the pair is held apart, nor when only the pest's class is held.
	for _, w := range []float64{1, 3} {
		known := concepts(queryConcept{label: "molhamento", direct: []string{"molhamento"}, weight: w, raw: w, own: true})
		if ev := known.evidenceFor(sig, nil, lexical.FieldName, &o); !ev.Relevant || !ev.described {
			t.Errorf("pair held, a word of the store missing (weight %v): %+v, want relevant as a described problem", w, ev)
		}
		known.strictPair = true
		if ev := known.evidenceFor(sig, nil, lexical.FieldName, &o); ev.Relevant {
			t.Errorf("pair held apart, a word of the store missing (weight %v): %+v, want not relevant", w, ev)
		}
	}
	byClass := concepts(queryConcept{label: "molhamento", direct: []string{"molhamento"}, weight: 3, raw: 3, own: true})
	byClass.concepts[0].class, byClass.concepts[0].indirect = []string{"inseticida"}, true
	classSig := &lexical.Signals{Pair: true, Matched: []lexical.TermMatch{
		{Term: "inseticida", Fields: []string{"category"}}, {Term: "trigo", Fields: []string{"tags"}}}}
	if ev := byClass.evidenceFor(classSig, nil, lexical.FieldName, &o); ev.Relevant {
		t.Errorf("only the pest's class held, a word of the store missing: %+v, want not relevant", ev)
	}
}

// TestEvidencePairTogether: the culture and the pest asked on one line of
// a field, by the question's own words or the culture's canonical term.
func TestEvidencePairTogether(t *testing.T) {
	eq := &evidenceQuery{pairAsked: true, concepts: []queryConcept{
		{label: "percevejo", direct: []string{"percevejo"}, class: []string{"inseticida"}, treatment: true},
		{label: "sojinha", direct: []string{"sojinha"}, class: []string{"soja"}, culture: true},
	}}
	rec := func(text string) lexical.Record { return metadataRecord{text} }
	if !eq.pairTogether(rec("Na cultura do milho, lagarta.\nNa cultura da soja, controla percevejo-marrom.")) {
		t.Error("soja and percevejo on one line: not together")
	}
	if eq.pairTogether(rec("Soja: lagarta-da-soja.\nMilho: percevejo-barriga-verde.")) {
		t.Error("soja and percevejo on different lines: together")
	}
	if eq.pairTogether(rec("Soja: inseticida de amplo espectro.")) {
		t.Error("the pest's class is not the pest: together")
	}
}

// TestGenerality: the documented weights of common words, the same for a
// catalog token ("sabado", no filters) and a stemming scorer's ("sabad").
func TestGenerality(t *testing.T) {
	freq := lexicon.DefaultFrequencies()
	plain := newGeneralTable(freq, nil)
	stemmed := newGeneralTable(freq, []lexical.TokenFilter{snowball.Filter{}})
	if plain == nil || stemmed == nil {
		t.Fatal("no table for the default frequencies")
	}
	for _, tt := range []struct {
		table *generalTable
		tok   string
		want  float64
	}{
		{plain, "que", 0.3}, {plain, "voces", 0.3}, {plain, "carro", 0.39}, {plain, "preco", 0.73},
		{plain, "sabado", 0.81}, {stemmed, "sabad", 0.81}, {plain, "fungicida", 1}, {stemmed, "fungicid", 1},
		{plain, "azoxistrobina", 1},
		// A chat abbreviation weighs what its word weighs; a number, which
		// the list does not rank, numberGenerality.
		{plain, "qnd", generality(plain, "quando")}, {plain, "tbm", 0.3}, {plain, "hj", generality(plain, "hoje")},
		{stemmed, "qnd", generality(stemmed, "quand")}, {plain, "15", numberGenerality}, {plain, "2800", numberGenerality},
		// A unit glued to a figure keeps it a figure; a code does not.
		{plain, "15km", numberGenerality}, {plain, "50kg", numberGenerality}, {plain, "480sl", 1}, {plain, "24d", 1},
	} {
		if got := generality(tt.table, tt.tok); math.Abs(got-tt.want) > 0.01 {
			t.Errorf("generality(%q) = %.3f, want %.2f", tt.tok, got, tt.want)
		}
	}
	if newGeneralTable(lexicon.NewFrequencies(nil, nil), nil) != nil {
		t.Error("an empty list gives a table")
	}

	// Weights scale by generality, class concepts keep theirs, and maxRaw
	// follows the scaled weights; no table changes nothing.
	mk := func() *evidenceQuery {
		return &evidenceQuery{maxRaw: 2, concepts: []queryConcept{
			{label: "carro", direct: []string{"carro"}, weight: 2, raw: 2},
			{label: "ferrugem", direct: []string{"ferrugem"}, class: []string{"fungicida"}, treatment: true, weight: 1, raw: 1},
		}}
	}
	eq := mk()
	eq.weighGenerality(plain)
	if c := eq.concepts[0]; math.Abs(c.weight-2*generality(plain, "carro")) > 1e-9 || c.raw != c.weight {
		t.Errorf("carro weight %v raw %v, want 2 × %.3f", c.weight, c.raw, generality(plain, "carro"))
	}
	if c := eq.concepts[1]; c.weight != 1 {
		t.Errorf("a synonym-table concept weighs %v, want its own 1", c.weight)
	}
	if want := max(2*generality(plain, "carro"), 1); eq.maxRaw != want {
		t.Errorf("maxRaw %v, want %v", eq.maxRaw, want)
	}
	eq = mk()
	eq.weighGenerality(nil)
	if eq.concepts[0].weight != 2 || eq.maxRaw != 2 {
		t.Errorf("no table: %+v, maxRaw %v; want unchanged", eq.concepts[0], eq.maxRaw)
	}
}

// TestGeneralTableOncePerKind: refreshes build new scorers, but the
// Searcher keeps one table per kind (the scorers share their tokenizer).
func TestGeneralTableOncePerKind(t *testing.T) {
	s := &Searcher{evidence: EvidenceOptions{}.withDefaults()}
	a := s.wordsFor(storage.KindFAQ, lexical.NewScorer(lexical.ScorerOptions{})).general
	b := s.wordsFor(storage.KindFAQ, lexical.NewScorer(lexical.ScorerOptions{})).general
	if a == nil || a != b {
		t.Errorf("two scorers of a kind: tables %p and %p, want one", a, b)
	}
	if c := s.wordsFor(storage.KindItem, lexical.NewScorer(lexical.ScorerOptions{})).general; c == a {
		t.Error("two kinds share a table")
	}
}

// TestEvidenceNamedOnlyByItemName: the rare word a FAQ's question holds is
// a topic, not a name (only a catalog item's name names it).
func TestEvidenceNamedOnlyByItemName(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{maxRaw: 3, concepts: []queryConcept{
		{label: "periodo", direct: []string{"periodo"}, weight: 3, raw: 3, rare: true, own: true},
		{label: "discente", direct: []string{"discente"}, weight: 3, raw: 3, own: true, unknown: true},
		{label: "coordenador", direct: []string{"coordenador"}, weight: 3, raw: 3, own: true, unknown: true},
	}}
	sig := func(field string) *lexical.Signals {
		return &lexical.Signals{Matched: []lexical.TermMatch{{Term: "periodo", Fields: []string{field}}}}
	}
	if ev := eq.evidenceFor(sig(fieldname.Question), nil, fieldname.Question, &o); ev.Named || ev.Relevant {
		t.Errorf("FAQ question holding the rare word: %+v, want neither named nor relevant", ev)
	}
	if ev := eq.evidenceFor(sig(lexical.FieldName), nil, lexical.FieldName, &o); !ev.Named || !ev.Relevant {
		t.Errorf("item name holding the rare word: %+v, want named and relevant", ev)
	}
}

// TestEvidenceCropGroup checks that a record naming a group of the crop
// asked ("Hortaliças" for "repolho") holds the crop with indirectCredit
// and, with the treatment, the pair; a record that names no group lacks
// the pair.
func TestEvidenceCropGroup(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{
		concepts: []queryConcept{
			{label: "lagarta", direct: []string{"lagarta"}, class: []string{"inseticida"}, treatment: true, indirect: true, weight: 1, raw: 1},
			{label: "repolho", direct: []string{"repolho"}, culture: true, within: []string{"hortalicas", "todas as culturas"}, weight: 1, raw: 1},
		},
		pairAsked: true, groups: true, maxRaw: 1,
	}
	sig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "lagarta", Fields: []string{"description"}}}}
	item := func(tags ...string) func(string) bool {
		rec := itemRecord{&storage.CatalogItem{ID: "x", Name: "Bt", Description: "Controle de lagartas.", Tags: tags,
			Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Registrado para repolho? Não: para hortaliças."}}}}
		return func(p string) bool { return recordNames(rec, p) }
	}
	ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, item("Soja", "Hortaliças"), nil, nil)
	// Coverage (1 + 0.5)/2 = 0.75; with the pair held and nothing known
	// missing, lexical evidence is at least the threshold.
	if !ev.Relevant || !ev.Pair || math.Abs(ev.Coverage-0.75) > 1e-9 || !slices.Contains(ev.Covered, "repolho") {
		t.Errorf("tagged Hortaliças: %+v, want relevant, pair, coverage 0.75", ev)
	}
	if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, item("Todas as culturas"), nil, nil); !ev.Relevant || !ev.Pair {
		t.Errorf("tagged Todas as culturas: %+v, want relevant with the pair", ev)
	}
	// With no indirect credit (a negative indirectCredit), a group holds
	// nothing, nor the pair.
	none := EvidenceOptions{indirectCredit: -1}.withDefaults()
	if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &none, item("Soja", "Hortaliças"), nil, nil); ev.Pair || slices.Contains(ev.Covered, "repolho") {
		t.Errorf("tagged Hortaliças, no indirect credit: %+v, want neither the crop nor the pair", ev)
	}
	// The group named only in an attached file, or not at all: no pair.
	for _, tags := range [][]string{{"Soja"}, nil} {
		if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, item(tags...), nil, nil); ev.Relevant || ev.Pair || ev.Reason != ReasonMissingPair {
			t.Errorf("tags %q: %+v, want the pair missing", tags, ev)
		}
	}
	if ev := eq.evidenceFor(sig, nil, lexical.FieldName, &o); ev.Pair {
		t.Errorf("no record to look into: %+v", ev)
	}
}

func TestRecordNames(t *testing.T) {
	rec := itemRecord{&storage.CatalogItem{Name: "Produto X", Description: "Indicado para hortaliça folhosa e frutíferas.", Tags: []string{"Todas as Culturas"}}}
	for phrase, want := range map[string]bool{
		"hortalicas": true, "fruteiras": false, "frutiferas": true, "todas as culturas": true, "todas culturas": false, "": false,
	} {
		if got := recordNames(rec, phrase); got != want {
			t.Errorf("recordNames(%q) = %v, want %v", phrase, got, want)
		}
	}
}

// TestEvidenceMissingSubject checks that a catalog item lacking the crop
// asked is not relevant through its vector alone, while a FAQ may be.
func TestEvidenceMissingSubject(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{
		concepts: []queryConcept{
			{label: "semente", direct: []string{"semente"}, weight: 1, raw: 1, own: true},
			{label: "girassol", direct: []string{"girassol"}, culture: true, weight: 1, raw: 1, own: true, unknown: true},
		},
		maxRaw: 1,
		bg:     &Background{Median: 0.05, P95: 0.09, Samples: 100},
	}
	sig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "semente", Fields: []string{"name"}}}}
	close := &VectorEvidence{Similarity: 0.25} // z = 5: vector evidence 0.93
	if ev := eq.evidenceFor(sig, close, lexical.FieldName, &o); ev.Relevant {
		t.Errorf("catalog item without the crop: %+v, want not relevant", ev)
	}
	if ev := eq.evidenceFor(sig, close, fieldname.Question, &o); !ev.Relevant {
		t.Errorf("FAQ without the crop: %+v, want relevant through the vector", ev)
	}
	withCrop := &lexical.Signals{Matched: append(sig.Matched, lexical.TermMatch{Term: "girassol", Fields: []string{"tags"}})}
	if ev := eq.evidenceFor(withCrop, close, lexical.FieldName, &o); !ev.Relevant {
		t.Errorf("catalog item with the crop: %+v, want relevant", ev)
	}
	// In a follow-up, the earlier turn's crop held ("uva") is not the crop
	// the message asks ("e a dose dele na soja?").
	followUp := &evidenceQuery{
		concepts: []queryConcept{
			{label: "dose", direct: []string{"dose"}, weight: 1, raw: 1, own: true},
			{label: "soja", direct: []string{"soja"}, culture: true, weight: 1, raw: 1, own: true},
			{label: "uva", direct: []string{"uva"}, culture: true, weight: 0.5, raw: 1},
		},
		maxRaw: 1, hasContext: true,
		bg: &Background{Median: 0.05, P95: 0.09, Samples: 100},
	}
	doseUva := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "dose", Fields: []string{"files"}}, {Term: "uva", Fields: []string{"tags"}}}}
	if ev := followUp.evidenceFor(doseUva, close, lexical.FieldName, &o); ev.Relevant {
		t.Errorf("follow-up, catalog item with the earlier crop only: %+v, want not relevant", ev)
	}
	// The item the query names, asked about a crop it lacks ("o Fungiprot
	// serve para uva?"), stays relevant at the threshold (low confidence):
	// its crops answer no.
	named := &evidenceQuery{
		concepts: []queryConcept{
			{label: "fungiprot", direct: []string{"fungiprot"}, weight: 3, raw: 3, own: true, rare: true},
			{label: "uva", direct: []string{"uva"}, culture: true, weight: 1, raw: 1, own: true},
		},
		maxRaw: 3,
		bg:     &Background{Median: 0.05, P95: 0.09, Samples: 100},
	}
	nameSig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "fungiprot", Fields: []string{"name"}}}}
	if ev := named.evidenceFor(nameSig, close, lexical.FieldName, &o); !ev.Named || !ev.Relevant || ev.Relevance != o.Threshold {
		t.Errorf("named item without the crop: %+v, want named and relevant at the threshold %v", ev, o.Threshold)
	}
}

// TestEvidenceInsideWord checks that a catalog term found only inside a
// longer word ("rato" in "respiratória") earns no credit. "rato" is a
// target of the preset's class raticida, as analyzeEvidence gives it, so
// a leaflet naming it holds it.
func TestEvidenceInsideWord(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{concepts: []queryConcept{{label: "rato", direct: []string{"rato"}, class: []string{"raticida"}, weight: 1, raw: 1, own: true}}, maxRaw: 1}
	sig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "rato", Fields: []string{"files"}}}}
	rec := func(text string) func(string) bool {
		r := itemRecord{&storage.CatalogItem{Name: "Produto", Files: []storage.CatalogFile{{Name: "bula.txt", Text: text}}}}
		return func(term string) bool { return !startsWord(r, term) }
	}
	if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, nil, rec("Proteção respiratória."), nil); ev.Relevant || ev.Coverage != 0 {
		t.Errorf("inside a word: %+v, want no credit", ev)
	}
	for _, text := range []string{"Contra ratos e camundongos.", "Rato-do-campo", "isca (rato)"} {
		if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, nil, rec(text), nil); !ev.Relevant || ev.Coverage != 1 {
			t.Errorf("%q: %+v, want full credit", text, ev)
		}
	}
}

// TestTurnLevel checks the confidence of answering turns: high needs one
// cited record with relevance and lexical evidence both high.
func TestTurnLevel(t *testing.T) {
	p := &Pipeline{}
	faq := func(evs ...*Evidence) *searchResults {
		r := &searchResults{}
		for _, e := range evs {
			r.faqs = append(r.faqs, Hit[storage.FAQ]{Evidence: e})
		}
		return r
	}
	strong := &Evidence{Relevance: 0.95, Lexical: 0.9, Coverage: 1}
	for _, tt := range []struct {
		name string
		r    *searchResults
		want scoring.Level
	}{
		{"one strong record", faq(strong), scoring.LevelHigh},
		{"one record found by its vector only", faq(&Evidence{Relevance: 0.9, Lexical: 0.1, Coverage: 0.2}), scoring.LevelMedium},
		{"two strong records", faq(strong, strong), scoring.LevelMedium},
		{"a weaker record cited too", faq(strong, &Evidence{Relevance: 0.65, Lexical: 0.65, Coverage: 0.75}), scoring.LevelLow},
		{"nothing relevant", faq(&Evidence{Relevance: 0.3}), scoring.LevelNone},
		// The two thresholds at their edges: relevance 0.8, lexical 0.6.
		{"one record at both thresholds", faq(&Evidence{Relevance: 0.8, Lexical: 0.6}), scoring.LevelHigh},
		{"one record just below the lexical threshold", faq(&Evidence{Relevance: 0.8, Lexical: 0.59}), scoring.LevelMedium},
		{"one record just below the relevance threshold", faq(&Evidence{Relevance: 0.79, Lexical: 0.9}), scoring.LevelLow},
		// Relevant only by its name or a described problem: the question's
		// words are not what the record holds.
		{"one record relevant by its name", faq(&Evidence{Relevance: 0.95, Lexical: 0.6, Coverage: 0.4, Reason: ReasonNamed}), scoring.LevelMedium},
		{"one record holding a described problem", faq(&Evidence{Relevance: 0.95, Lexical: 0.6, Coverage: 0.4, described: true}), scoring.LevelMedium},
	} {
		if got := p.turnLevel(tt.r); got != tt.want {
			t.Errorf("%s: level %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestEvidenceInsideWordClassAndOrder checks that the inside-word rule
// holds for the canonical term a query word stands for ("uva" of
// "videira" inside "chuva"), and that a concept's word found at a word
// start keeps its credit whatever the order of its other words.
func TestEvidenceInsideWordClassAndOrder(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	rec := func(text string) func(string) bool {
		r := itemRecord{&storage.CatalogItem{Name: "Produto", Description: text}}
		return func(term string) bool { return !startsWord(r, term) }
	}
	videira := &evidenceQuery{concepts: []queryConcept{{label: "videira", direct: []string{"videira"}, class: []string{"uva"}, culture: true, weight: 1, raw: 1, own: true}}, maxRaw: 1}
	uva := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "uva", Fields: []string{"description"}, Synonym: true}}}
	if ev := videira.recordEvidence(uva, nil, lexical.FieldName, &o, nil, rec("Aplicar antes da chuva."), nil); ev.Relevant || ev.Coverage != 0 {
		t.Errorf("canonical term inside a word: %+v, want no credit", ev)
	}
	if ev := videira.recordEvidence(uva, nil, lexical.FieldName, &o, nil, rec("Uva e maçã."), nil); !ev.Relevant || ev.Coverage != 1 {
		t.Errorf("canonical term as a word: %+v, want full credit", ev)
	}
	cana := &evidenceQuery{concepts: []queryConcept{{label: "cana", direct: []string{"cana", "acucar"}, culture: true, weight: 1, raw: 1, own: true}}, maxRaw: 1}
	both := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "cana", Fields: []string{"description"}}, {Term: "acucar", Fields: []string{"description"}}}}
	if ev := cana.recordEvidence(both, nil, lexical.FieldName, &o, nil, rec("Cana; semiaçucarado."), nil); !ev.Relevant || ev.Coverage != 1 {
		t.Errorf("first word at a word start, second inside a word: %+v, want full credit", ev)
	}
	// After a compounding prefix the word starts: "Bioinseticida" holds
	// "inseticida"; inside a longer stem ("Subrato") it does not.
	for text, want := range map[string]bool{"Bioinseticida à base de Bt.": true, "Micronutrientes e macronutrientes": true, "Superfosfato simples": true, "Acaricida-inseticida": true, "Respiratória": false, "Probioinseticida": false} {
		r := itemRecord{&storage.CatalogItem{Name: "Produto", Description: text}}
		ok := startsWord(r, "inseticida") || startsWord(r, "nutriente") || startsWord(r, "fosfato") || startsWord(r, "rato")
		if ok != want {
			t.Errorf("startsWord in %q = %v, want %v", text, ok, want)
		}
	}
}

// TestRecordNamesWords checks the group phrase match: consecutive words,
// stemmed, at word starts, outside attached files.
func TestRecordNamesWords(t *testing.T) {
	for _, tt := range []struct {
		text, phrase string
		want         bool
	}{
		{"Soja, Milho, Hortaliças", "hortalicas", true},
		{"hortaliça", "hortalicas", true},
		{"Registrado para todas as culturas.", "todas as culturas", true},
		{"Todas, as  culturas", "todas as culturas", true},
		{"todas as lavouras e culturas", "todas as culturas", false},
		{"quase todas as culturas", "todas as culturas", true},
		{"contodas as culturas", "todas as culturas", false},
		{"todas as", "todas as culturas", false},
		{"Frutíferas", "hortalicas", false},
	} {
		rec := itemRecord{&storage.CatalogItem{Name: "Produto", Tags: []string{tt.text}}}
		if got := recordNames(rec, tt.phrase); got != tt.want {
			t.Errorf("recordNames(%q, %q) = %v, want %v", tt.text, tt.phrase, got, tt.want)
		}
	}
	inFile := itemRecord{&storage.CatalogItem{Name: "Produto", Files: []storage.CatalogFile{{Text: "hortaliças"}}}}
	if recordNames(inFile, "hortalicas") {
		t.Error("a group named only in an attached file counts")
	}
}

// TestSectionEvidenceCropGroup checks that a document judged by its
// sections keeps the group credit: a section naming "Hortaliças" holds
// "repolho" as the whole document does.
func TestSectionEvidenceCropGroup(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	s := lexical.NewScorer(fields.DocumentScorer())
	pq := s.Prepare("inseticida para lagarta no repolho")
	eq := analyzeEvidence(pq, s.Synonyms(), s.Tokenizer().Filters, func(string) float64 { return 1 }, nil, 0, textutil.FrameSet(defaultFrameWords), nil)
	if !eq.groups {
		t.Fatalf("no group for repolho: %+v", eq.concepts)
	}
	d := &storage.Document{Title: "Manual de manejo", Content: "# Hortaliças\n\nInseticida para lagartas em hortaliças folhosas.\n\n# Grãos\n\nPercevejos na soja."}
	whole := lexical.NormalizeRecord(docRecord{d})
	_, sig := pq.Score(whole)
	doc := eq.recordEvidence(&sig, nil, fieldname.Title, &o, func(p string) bool { return recordNames(whole, p) }, nil, nil)
	if !doc.Relevant {
		t.Fatalf("whole document: %+v, want relevant through the group", doc)
	}
	sec := sectionEvidence(eq, pq, documentSections(d), nil, fieldname.Title, &o)
	if sec == nil || !sec.Relevant || !sec.Pair {
		t.Errorf("best section: %+v, want relevant with the pair through the group", sec)
	}
}

// TestByEvidenceIdentity: of two equally relevant hits, the one holding
// the question's concepts in its name, category, tags or metadata comes
// first, whatever the search order; relevance still comes before it.
func TestByEvidenceIdentity(t *testing.T) {
	hits := []Hit[storage.CatalogItem]{
		{ID: "mentions", Evidence: &Evidence{Relevance: 1}},
		{ID: "is", Evidence: &Evidence{Relevance: 1, identity: 1}},
		{ID: "rounds-alike", Evidence: &Evidence{Relevance: 0.999}}, // 0.999 ties with 1 (rounded to 0.01)
		{ID: "less-relevant", Evidence: &Evidence{Relevance: 0.7, identity: 2}},
	}
	var got []string
	for _, h := range byEvidence(hits, nil) {
		got = append(got, h.ID)
	}
	if want := []string{"is", "mentions", "rounds-alike", "less-relevant"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestByEvidenceNilIsNoIdentity: a hit without evidence holds nothing of
// the question (relevance and identity 0), so the order stays a strict
// weak order when it is among hits with evidence: the one holding a
// concept in its name comes first, wherever the unjudged hit stands.
func TestByEvidenceNilIsNoIdentity(t *testing.T) {
	hits := []Hit[storage.CatalogItem]{
		{ID: "mentions", Evidence: &Evidence{}},
		{ID: "unjudged"},
		{ID: "is", Evidence: &Evidence{identity: 1}},
	}
	var got []string
	for _, h := range byEvidence(hits, nil) {
		got = append(got, h.ID)
	}
	if want := []string{"is", "mentions", "unjudged"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestFocusOnIdentity: a one-thing question keeps the items holding it in
// what they are (identity) and drops those that only mention it; a
// question of two things, or one no item is, keeps every item.
func TestFocusOnIdentity(t *testing.T) {
	item := func(id string, identity int, covered ...string) Hit[storage.CatalogItem] {
		return Hit[storage.CatalogItem]{ID: id, Evidence: &Evidence{Relevant: true, Covered: covered, identity: identity}}
	}
	r := &searchResults{catalog: []Hit[storage.CatalogItem]{item("seed", 0, "glifosato"), item("glifovale", 1, "glifosato"), item("saflux", 0, "glifosato")}}
	focusOnIdentity(r)
	if len(r.catalog) != 1 || r.catalog[0].ID != "glifovale" {
		t.Errorf("one thing asked: catalog %v, want glifovale only", r.catalog)
	}
	r = &searchResults{catalog: []Hit[storage.CatalogItem]{item("a", 0, "glifosato", "soja"), item("b", 1, "glifosato", "soja")}}
	focusOnIdentity(r)
	if len(r.catalog) != 2 {
		t.Errorf("two things asked: catalog %v, want both", r.catalog)
	}
	r = &searchResults{catalog: []Hit[storage.CatalogItem]{item("a", 0, "glifosato"), item("b", 0, "glifosato")}}
	focusOnIdentity(r)
	if len(r.catalog) != 2 {
		t.Errorf("no item is it: catalog %v, want both", r.catalog)
	}
}

// TestNotCarried: what a near miss says the store lacks, in the message's
// words joined by spaces: the span from the thing asked to the crop, or
// the two words in English order, within one clause; nothing otherwise.
func TestNotCarried(t *testing.T) {
	e := &Evidence{Covered: []string{"semente", "seeds"}, Missing: []string{"girassol", "sunflower"}}
	for msg, want := range map[string]string{
		"vocês têm semente de girassol?":                                    "semente de girassol",
		"do you sell girassol semente?":                                     "girassol semente",
		"pra girassol, a semente de vocês é boa?":                           "",
		"for sunflower, do you have any seeds?":                             "",
		"tem semente de alguma variedade boa e bem produtiva pra girassol?": "",
		`vocês têm semente "boa" de girassol?`:                              "semente boa de girassol",
		"semente... de girassol!":                                           "semente de girassol",
		"tem adubo?":                                                        "",
		"girassol, tem semente pra girassol?":                               "semente pra girassol",
		"tenho semente, e girassol?":                                        "",
		"quero comprar semente, de girassol":                                "semente de girassol",
		"tem semente? pro girassol":                                         "semente pro girassol",
		"girassol: semente tem?":                                            "",
	} {
		if got, _ := notCarried(msg, e, "Sementes"); got != want {
			t.Errorf("notCarried(%q) = %q, want %q", msg, got, want)
		}
	}
	if got, _ := notCarried("semente de girassol", nil, ""); got != "" {
		t.Errorf("nil evidence: %q", got)
	}
	// The near miss's category stands for the pest it covers; the span
	// runs to the last crop the message asks in the clause.
	// A span opening with the pest names a problem, not an item.
	pest := &Evidence{Covered: []string{"pulgao"}, Missing: []string{"fumo"}}
	for msg, want := range map[string]struct {
		what    string
		problem bool
	}{
		"o fumo ta com pulgao, tem inseticida pra fumo?": {"inseticida pra fumo", false},
		"fumo com pulgão: tem inseticida pra fumo?":      {"inseticida pra fumo", false},
		"pulgão no fumo, o que passo?":                   {"pulgão no fumo", true},
		"inseticida pra pulgão no fumo":                  {"inseticida pra pulgão no fumo", false},
	} {
		if got, problem := notCarried(msg, pest, "Acaricida/Inseticida"); got != want.what || problem != want.problem {
			t.Errorf("notCarried(%q) = %q, %v, want %q, %v", msg, got, problem, want.what, want.problem)
		}
	}
	// A category's function words stand for nothing.
	if got, _ := notCarried("tem algo para girassol?", &Evidence{Covered: []string{"bico"}, Missing: []string{"girassol"}}, "Peças para Pulverizador"); got != "" {
		t.Errorf("a category's preposition: %q, want nothing", got)
	}
	two := &Evidence{Covered: []string{"semente"}, Missing: []string{"girassol", "sorgo"}}
	if got, _ := notCarried("vcs vendem semente de girassol ou de sorgo?", two, "Sementes"); got != "semente de girassol ou de sorgo" {
		t.Errorf("two crops: %q", got)
	}
}

// TestFocusOnTreatment: an item only mentioning a treatment asked goes
// when a relevant item treats it, and stays when what it mentions is
// treated by none ("lagarta e ferrugem": a fungicide does not leave out
// the Bt seed when no insecticide is relevant).
func TestFocusOnTreatment(t *testing.T) {
	item := func(id string, e Evidence) Hit[storage.CatalogItem] {
		return Hit[storage.CatalogItem]{ID: id, Evidence: &e}
	}
	fungicide := item("fungicida", Evidence{Relevant: true, treats: true, treated: []string{"ferrugem"}})
	insecticide := item("inseticida", Evidence{Relevant: true, treats: true, treated: []string{"lagarta"}})
	seed := item("semente-bt", Evidence{Relevant: true, mentionsOnly: true, mentioned: []string{"lagarta"}})
	ids := func(hits []Hit[storage.CatalogItem]) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		in   []Hit[storage.CatalogItem]
		want []string
	}{
		{"treated", []Hit[storage.CatalogItem]{seed, insecticide}, []string{"inseticida"}},
		{"other problem treated", []Hit[storage.CatalogItem]{seed, fungicide}, []string{"semente-bt", "fungicida"}},
		{"nothing treats", []Hit[storage.CatalogItem]{seed}, []string{"semente-bt"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &searchResults{catalog: slices.Clone(tt.in)}
			focusOnTreatment(r)
			if got := ids(r.catalog); !slices.Equal(got, tt.want) {
				t.Errorf("catalog %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEvidenceVerbIsNoContent: a FAQ sharing only the request's verb with
// the question ("vocês fazem seguro de vida?" and "Vocês fazem cotação
// para grandes volumes?") is not made relevant by a close vector; one
// holding the nouns asked is.
func TestEvidenceVerbIsNoContent(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{
		concepts: []queryConcept{
			{label: "fazem", direct: []string{"faz"}, weight: 0.6, raw: 0.6, own: true, verb: true},
			{label: "seguro", direct: []string{"segur"}, weight: 0.5, raw: 0.5, own: true},
			{label: "vida", direct: []string{"vid"}, weight: 0.4, raw: 0.4, own: true},
		},
		maxRaw: 0.6,
		bg:     &Background{Median: 0.05, P95: 0.09, Samples: 100},
	}
	close := &VectorEvidence{Similarity: 0.25} // z = 5: vector evidence 0.93
	verbOnly := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "faz", Fields: []string{"question"}}}}
	if ev := eq.evidenceFor(verbOnly, close, fieldname.Question, &o); ev.Relevant {
		t.Errorf("FAQ sharing the verb only: %+v, want not relevant", ev)
	}
	nouns := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "segur", Fields: []string{"question"}}}}
	if ev := eq.evidenceFor(nouns, close, fieldname.Question, &o); !ev.Relevant {
		t.Errorf("FAQ holding what is asked: %+v, want relevant through the vector", ev)
	}
}

// TestEvidenceClassAskedByName: a class asked by its own word
// ("fungicida") is what an item of that category treats, not a mention.
func TestEvidenceClassAskedByName(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{concepts: []queryConcept{
		{label: "fungicida", direct: []string{"fungicida"}, treatment: true, weight: 1, raw: 1, own: true},
		{label: "cafe", direct: []string{"cafe"}, culture: true, weight: 1, raw: 1, own: true},
	}, maxRaw: 1}
	fungicide := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "fungicida", Fields: []string{lexical.FieldCategory}}, {Term: "cafe", Fields: []string{lexical.FieldTags}}}}
	if ev := eq.evidenceFor(fungicide, nil, lexical.FieldName, &o); !ev.treats || ev.mentionsOnly {
		t.Errorf("fungicide: treats %v, mentionsOnly %v; want it to treat what is asked", ev.treats, ev.mentionsOnly)
	}
	adjuvant := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "fungicida", Fields: []string{lexical.FieldDescription}}, {Term: "cafe", Fields: []string{lexical.FieldTags}}}}
	if ev := eq.evidenceFor(adjuvant, nil, lexical.FieldName, &o); ev.treats || !ev.mentionsOnly {
		t.Errorf("adjuvant mentioning fungicides: treats %v, mentionsOnly %v; want a mention", ev.treats, ev.mentionsOnly)
	}
}

// TestEvidenceClassGroup: a FAQ naming the group of a class asked by its
// own word ("defensivos" for "fungicida") holds the class with the
// indirect credit, without the pair; a catalog item does not, nor does a
// pest asked (two steps from the group).
func TestEvidenceClassGroup(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	syn := lexical.DefaultSynonyms()
	if !slices.Contains(syn.Within("fungicida"), "defensivo") {
		t.Fatalf("preset Within(fungicida) = %q, want defensivo", syn.Within("fungicida"))
	}
	eq := &evidenceQuery{
		concepts: []queryConcept{
			{label: "receita", direct: []string{"receita"}, weight: 1, raw: 1},
			{label: "fungicida", direct: []string{"fungicida"}, class: []string{"fungicida"}, treatment: true, within: syn.Within("fungicida"), weight: 1, raw: 1},
			{label: "soja", direct: []string{"soja"}, culture: true, weight: 1, raw: 1},
		},
		pairAsked: true, groups: true, maxRaw: 1,
	}
	sig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "receita", Fields: []string{"answer"}}, {Term: "soja", Fields: []string{"answer"}}}}
	rec := lexical.NormalizeRecord(lexical.Fields{{Name: "question", Text: "Preciso de receita para comprar defensivos?"}, {Name: "answer", Text: "Sim, para soja e qualquer cultura."}})
	holds := func(p string) bool { return recordNames(rec, p) }
	ev := eq.recordEvidence(sig, nil, "question", &o, holds, nil, nil)
	if !slices.Contains(ev.Covered, "fungicida") || math.Abs(ev.Coverage-2.5/3) > 1e-9 || ev.Pair {
		t.Errorf("FAQ naming defensivos: %+v, want fungicida covered at half credit (coverage 2.5/3), no pair", ev)
	}
	if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, holds, nil, nil); slices.Contains(ev.Covered, "fungicida") {
		t.Errorf("catalog item naming defensivos: %+v, want the class missing", ev)
	}
}

// TestEvidenceNamedByMetadata: a rare word no dictionary knows that an
// item's metadata holds (its active ingredient) names the item however
// little of a long question it covers; a word of the language does not.
func TestEvidenceNamedByMetadata(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	question := func(coined bool) *evidenceQuery {
		return &evidenceQuery{maxRaw: 1, concepts: []queryConcept{
			{label: "azoxistrobina", direct: []string{"azoxistrobina"}, weight: 1, raw: 1, own: true, rare: true, coined: coined},
			{label: "estudante", direct: []string{"estudante"}, weight: 1, raw: 1, own: true, unknown: true},
			{label: "pertence", direct: []string{"pertence"}, weight: 1, raw: 1, own: true, unknown: true},
		}}
	}
	sig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "azoxistrobina", Fields: []string{"files"}}}}
	meta := func(term string) bool { return term == "azoxistrobina" }
	if ev := question(true).recordEvidence(sig, nil, lexical.FieldName, &o, nil, nil, meta); !ev.Named || !ev.Relevant {
		t.Errorf("active ingredient in the metadata: %+v, want named and relevant", ev)
	}
	if ev := question(false).recordEvidence(sig, nil, lexical.FieldName, &o, nil, nil, meta); ev.Named || ev.Relevant {
		t.Errorf("a word of the language in the metadata: %+v, want neither named nor relevant", ev)
	}
	if ev := question(true).recordEvidence(sig, nil, lexical.FieldName, &o, nil, nil, nil); ev.Named {
		t.Errorf("the word only in a leaflet: %+v, want not named", ev)
	}
}

// TestEvidenceValueKindAsked: a word asking for a kind of value ("demora":
// a duration) is held, at the indirect credit, by a FAQ holding a value of
// the kind ("até 2 dias úteis") beside another word of the question, though
// not the word itself; not by one holding none or holding it elsewhere,
// and never by a catalog item (whose leaflets hold durations of every
// kind).
func TestEvidenceValueKindAsked(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	s := lexical.NewScorer(fields.FAQScorer())
	const q = "e no boleto demora mais?"
	pq := s.Prepare(q)
	eq := analyzeEvidence(pq, s.Synonyms(), s.Tokenizer().Filters, func(string) float64 { return 1 }, nil, 0, textutil.FrameSet(defaultFrameWords), nil)
	eq.markAsks(q, s.Tokenizer().Filters)
	if !slices.ContainsFunc(eq.concepts, func(c queryConcept) bool { return c.asks == "#duration" }) {
		t.Fatalf("concepts %+v: want one asking a duration", eq.concepts)
	}
	judge := func(answer, titleField string) *Evidence {
		rec := lexical.NormalizeRecord(lexical.Fields{{Name: "question", Text: "Quais formas de pagamento vocês aceitam?"}, {Name: "answer", Text: answer}})
		_, sig := pq.Score(rec)
		eq.valueHeld = valuesNear(rec)
		defer func() { eq.valueHeld = nil }()
		return eq.recordEvidence(&sig, nil, titleField, &o, nil, nil, nil)
	}
	with := judge("O boleto vence em 3 dias úteis e a compensação leva até 2 dias úteis.", "question")
	without := judge("Aceitamos boleto bancário e cartão.", "question")
	// The value must sit beside another word of the question the record
	// holds: a duration about something else answers nothing.
	apart := judge("Aceitamos boleto bancário e cartão. O estorno leva até 10 dias.", "question")
	if len(apart.Covered) != 1 {
		t.Errorf("FAQ holding a duration apart from boleto: %+v, want the duration word missing", apart)
	}
	// A time of day is no duration ("até as 14h").
	if clock := judge("Boletos pagos até as 14h.", "question"); len(clock.Covered) != 1 {
		t.Errorf("FAQ holding a time of day: %+v, want the duration word missing", clock)
	}
	if with.Coverage <= without.Coverage || len(with.Covered) != 2 {
		t.Errorf("FAQ holding a duration: %+v; without one: %+v; want the duration word covered", with, without)
	}
	if item := judge("O boleto vence em 3 dias úteis.", lexical.FieldName); len(item.Covered) != 1 {
		t.Errorf("catalog item: %+v, want the duration word missing", item)
	}
}

// TestEvidenceRequestOnly: a record holding, of a question about
// something, only the word asking for a kind of value ("demora") is not
// relevant: "o passaporte demora?" is not the delivery FAQ's, while "a
// entrega demora?" is, and so are a question that is nothing but the
// request and one whose other word is a verb.
func TestEvidenceRequestOnly(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	s := lexical.NewScorer(fields.FAQScorer())
	rec := lexical.NormalizeRecord(lexical.Fields{{Name: "question", Text: "A entrega demora?"}, {Name: "answer", Text: "A entrega demora de 2 a 5 dias úteis."}})
	judge := func(q string) *Evidence {
		pq := s.Prepare(q)
		eq := analyzeEvidence(pq, s.Synonyms(), s.Tokenizer().Filters, func(string) float64 { return 1 }, nil, 0, textutil.FrameSet(defaultFrameWords), nil)
		eq.markVerbs(q, s.Tokenizer().Filters)
		eq.markAsks(q, s.Tokenizer().Filters)
		_, sig := pq.Score(rec)
		// A close vector, as the hash embedder gives two short questions
		// sharing a word.
		return eq.recordEvidence(&sig, &VectorEvidence{Similarity: 0.9}, "question", &o, nil, nil, nil)
	}
	if ev := judge("o passaporte demora?"); ev.Relevant {
		t.Errorf("o passaporte demora?: %+v, want not relevant (only the request held)", ev)
	}
	// A verb the record lacks names nothing ("chegar": the delivery FAQ
	// answers "demora muito pra chegar?").
	for _, q := range []string{"a entrega demora?", "demora?", "demora muito pra chegar?"} {
		if ev := judge(q); !ev.Relevant {
			t.Errorf("%s: %+v, want relevant", q, ev)
		}
	}
}

// TestSpansLongerWord: a token longer than a mention's word is another
// word ("pastonet" is no "pasto"), unless it is the word hyphenated to the
// next; a stem of the word is the word.
func TestSpansLongerWord(t *testing.T) {
	for _, tc := range []struct {
		words []string
		token string
		want  bool
	}{
		{[]string{"pasto"}, "pasto", true},
		{[]string{"pasto"}, "pastonet", false},
		{[]string{"feijao"}, "feija", true},
		{[]string{"ferrugem", "asiatica"}, "ferrugem-asiatica", true},
		{[]string{"soja"}, "sojavale", false},
	} {
		if got := spans(tc.words, tc.token); got != tc.want {
			t.Errorf("spans(%v, %q) = %v, want %v", tc.words, tc.token, got, tc.want)
		}
	}
}

// TestNameHoldsWord: an item's name holds a word as a word of its own, not
// as the start of a longer one.
func TestNameHoldsWord(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		want        bool
	}{
		{"Pastoforte 806 SL", "pasto", false},
		{"Pastonet Max", "pastonet", true},
		{"Semente de Soja SMR 6280 BtRR", "soja", true},
		{"Semente de Milho", "sementes", true},
		{"Cafeplus", "cafe", false},
	} {
		if got := nameHoldsWord(tc.name, tc.token); got != tc.want {
			t.Errorf("nameHoldsWord(%q, %q) = %v, want %v", tc.name, tc.token, got, tc.want)
		}
	}
}

// TestEvidenceCropNamesOnlyAsAWord: a crop asked ("pasto") that a catalog
// item's name holds only as the start of a longer word ("Pastoforte") does
// not name the item; a name holding it as a word does.
func TestEvidenceCropNamesOnlyAsAWord(t *testing.T) {
	o := EvidenceOptions{}.withDefaults()
	eq := &evidenceQuery{maxRaw: 1, concepts: []queryConcept{
		{label: "pasto", direct: []string{"pasto"}, class: []string{"pastagem"}, culture: true, weight: 1, raw: 1, own: true, rare: true},
		{label: "feijao", direct: []string{"feijao"}, culture: true, weight: 1, raw: 1, own: true},
		{label: "plantar", direct: []string{"plantar"}, weight: 1, raw: 1, own: true},
	}}
	sig := &lexical.Signals{Matched: []lexical.TermMatch{{Term: "pasto", Fields: []string{lexical.FieldName}}}}
	for _, tc := range []struct {
		name  string
		named bool
	}{{"Pastoforte 806 SL", false}, {"Capim Pasto Forte", true}} {
		eq.nameHolds = func(t string) bool { return nameHoldsWord(tc.name, t) }
		if ev := eq.recordEvidence(sig, nil, lexical.FieldName, &o, nil, nil, nil); ev.Named != tc.named {
			t.Errorf("%s: named %v, want %v (%+v)", tc.name, ev.Named, tc.named, ev)
		}
	}
}

// TestFocusOnValue: a question asking for a kind of value keeps, of the
// FAQs and documents, those holding one beside its words when one does;
// items stay, and nothing is dropped when none holds one.
func TestFocusOnValue(t *testing.T) {
	ev := func(asked, held bool) *Evidence {
		return &Evidence{Relevant: true, Relevance: 0.8, valueAsked: asked, valueHeld: held, valueAnywhere: held}
	}
	r := &searchResults{
		catalog: []Hit[storage.CatalogItem]{{ID: "prd-1", Evidence: ev(false, false)}},
		faqs:    []Hit[storage.FAQ]{{ID: "faq-021", Evidence: ev(true, false)}, {ID: "faq-x", Evidence: ev(false, false)}},
		docs:    []Hit[storage.Document]{{ID: "manejo", Evidence: ev(true, true)}},
	}
	focusOnValue(r)
	if len(r.catalog) != 1 || len(r.faqs) != 1 || r.faqs[0].ID != "faq-x" || len(r.docs) != 1 {
		t.Errorf("after focusOnValue: catalog %v faqs %v docs %v", r.catalog, r.faqs, r.docs)
	}
	// A FAQ stating the value away from the question's words (its answer
	// gives the delivery time without repeating "pedido") stays.
	away := ev(true, false)
	away.valueAnywhere = true
	r = &searchResults{faqs: []Hit[storage.FAQ]{{ID: "faq-001", Evidence: away}}, docs: []Hit[storage.Document]{{ID: "policy", Evidence: ev(true, true)}}}
	focusOnValue(r)
	if len(r.faqs) != 1 || len(r.docs) != 1 {
		t.Errorf("a FAQ holding the value away from the words was dropped: faqs %v docs %v", r.faqs, r.docs)
	}
	r = &searchResults{faqs: []Hit[storage.FAQ]{{ID: "faq-021", Evidence: ev(true, false)}}, docs: []Hit[storage.Document]{{ID: "d", Evidence: ev(true, false)}}}
	focusOnValue(r)
	if len(r.faqs) != 1 || len(r.docs) != 1 {
		t.Errorf("no record holds the value, yet some were dropped: faqs %v docs %v", r.faqs, r.docs)
	}
}

// TestPriceOrder: the cues of a question asking the cheapest or the
// dearest; a price word alone, or a cheap thing of another kind, asks no
// order.
func TestPriceOrder(t *testing.T) {
	for msg, want := range map[string]int{
		"qual desses é mais barato?":        1,
		"qual sai mais em conta?":           1,
		"o de menor preço":                  1,
		"which one is cheaper?":             1,
		"the cheapest one?":                 1,
		"e o mais caro?":                    -1,
		"qual tem o maior preço?":           -1,
		"which is the most expensive?":      -1,
		"quanto custa?":                     0,
		"é caro?":                           0,
		"tem passagem barata pra cuiabá?":   0,
		"o barato sai caro, qual é melhor?": 0,
	} {
		if got := priceOrder(msg); got != want {
			t.Errorf("priceOrder(%q) = %d, want %d", msg, got, want)
		}
	}
	for msg, want := range map[string]bool{
		"qual desses é mais barato?":           true,
		"e o mais caro?":                       true,
		"which one is cheaper?":                true,
		"qual desses tem o menor preço?":       true,
		"quanto custa o mais barato?":          true,
		"qual desses é mais barato pro milho?": false,
		"qual o mais barato por hectare?":      false,
		"e o frete, qual o mais barato?":       false,
		"tem algum mais barato?":               false,
		"is there a cheaper one?":              false,
	} {
		if got := onlyPriceOrder(msg); got != want {
			t.Errorf("onlyPriceOrder(%q) = %v, want %v", msg, got, want)
		}
	}
}

// TestCategoryClasses: the price order compares pesticides of one class
// ("Acaricida/Inseticida" with "Inseticida") and anything else only of its
// very category ("EPI" names no class; a biological insecticide is no
// fungicide).
func TestCategoryClasses(t *testing.T) {
	syn := lexical.DefaultSynonyms()
	for category, want := range map[string][]string{
		"Acaricida/Inseticida":      {"acaricida", "inseticida"},
		"Inseticida Microbiológico": {"inseticida"},
		"Fungicida Microbiológico":  {"fungicida"},
		"EPI":                       nil,
		"Sementes":                  nil,
	} {
		got := categoryClasses(category, syn)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("categoryClasses(%q) = %v, want %v", category, got, want)
		}
	}
	for word, want := range map[string]bool{"pulgão": true, "ferrugem": true, "aphids": true, "fungicida": false, "insecticide": false, "mancozebe": false, "dose": false} {
		if got := pestWord(word, syn); got != want {
			t.Errorf("pestWord(%q) = %v, want %v", word, got, want)
		}
	}
}
