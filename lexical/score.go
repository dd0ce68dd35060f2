package lexical

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// Field names of [ProductFields].
const (
	FieldName         = "name"
	FieldDescription  = "description"
	FieldCategory     = "category"
	FieldManufacturer = "manufacturer"
	FieldTags         = "tags"
)

// maxFields and maxTerms bound the per-record bookkeeping, which lives in
// fixed-size arrays so scoring does not allocate.
const (
	maxFields = 64
	maxTerms  = 64
)

// FieldSpec declares one named text field a [Scorer] looks at.
type FieldSpec struct {
	// Name identifies the field; a [Field] whose Name is not declared is
	// ignored.
	Name string
	// Weight is added to the score for each query term found in the field.
	Weight float64
	// Tags marks a field holding tags: a subject of the query found in it
	// earns the SubjectInTag bonus.
	Tags bool
}

// ProductFields returns the field set of a product catalog (the default):
// tags 4 (curated labels the store chose, such as crops), name 3.5
// (what people type), description 2.5, category 2 (broad), manufacturer
// 1.5 (a brand is rarely what is asked). The result is a new slice on
// every call.
func ProductFields() []FieldSpec {
	return []FieldSpec{
		{Name: FieldName, Weight: 3.5},
		{Name: FieldDescription, Weight: 2.5},
		{Name: FieldCategory, Weight: 2},
		{Name: FieldManufacturer, Weight: 1.5},
		{Name: FieldTags, Weight: 4, Tags: true},
	}
}

// Field is one named text field of a record. Text may be raw; it is
// folded by [Normalize] while scoring, which costs nothing more than a scan
// when it is already normalized ASCII (store it normalized to score
// without allocating).
type Field struct {
	// Name is matched against the Scorer's FieldSpec names.
	Name string
	// Text is the field's content, raw or normalized.
	Text string
}

// Record is anything with named text fields: an item, a FAQ, a document.
// A field name may repeat (one [Field] per tag); a term found in several
// fields of one name earns that name's weight once.
type Record interface {
	// NumFields returns the number of fields.
	NumFields() int
	// Field returns field i, 0 <= i < NumFields().
	Field(i int) Field
}

// Fields is a [Record] given as a list of fields, for any schema:
//
//	lexical.Fields{{Name: "question", Text: q}, {Name: "answer", Text: a}}
type Fields []Field

// NumFields returns len(d).
func (d Fields) NumFields() int { return len(d) }

// Field returns d[i].
func (d Fields) Field(i int) Field { return d[i] }

// NormalizedFields is a [Fields] record whose field texts are already
// [Normalize]d, so scoring uses them as they are instead of normalizing
// them again. Build one with [NormalizeRecord]; a text that is not
// normalized scores as if it did not contain what normalization would have
// made of it.
type NormalizedFields []Field

// NumFields returns len(d).
func (d NormalizedFields) NumFields() int { return len(d) }

// Field returns d[i].
func (d NormalizedFields) Field(i int) Field { return d[i] }

// NormalizeRecord returns rec's fields with their texts normalized, for
// records scored many times (a cache of hot records).
func NormalizeRecord(rec Record) NormalizedFields {
	n := rec.NumFields()
	doc := make(NormalizedFields, n)
	for i := range n {
		f := rec.Field(i)
		doc[i] = Field{Name: f.Name, Text: Normalize(f.Text)}
	}
	return doc
}

// Weights are the bonuses of a [Scorer]'s score. A zero field means its
// default; a negative field switches the bonus off (as in scoring.Weights). The
// defaults: Match 0.5 for each query term found (covering more of the
// query ranks higher), Subject 2 and Class 2, Pair 5 (a record with both
// the subject and the class asked — in the agronomy preset, the crop and
// the product class — is the answer itself), SubjectInTag 1 (a curated
// label is firmer than a mention in a description). The subject and class
// bonuses are those of the paired synonym categories ([CategorySubject],
// [CategoryClass]).
type Weights struct {
	// Match is added for each query term found in at least one field.
	Match float64
	// Subject is added when at least one subject of the query is found
	// in the record.
	Subject float64
	// Class is added when at least one class of the query is
	// found in the record.
	Class float64
	// Pair is added when both a subject and a class are.
	Pair float64
	// SubjectInTag is added when a subject of the query is found in a
	// Tags field.
	SubjectInTag float64
}

// defaultWeights returns the default bonuses (see Weights).
func defaultWeights() Weights {
	return Weights{Match: 0.5, Subject: 2, Class: 2, Pair: 5, SubjectInTag: 1}
}

// MatchMode says when a query term matches a field's normalized text.
type MatchMode uint8

const (
	// MatchSubstring matches a term anywhere in the text, like SQL's
	// ILIKE '%term%', so stems and word starts find inflections and
	// compounds: "uva" matches "uvas" and also "chuva". This is the
	// default.
	MatchSubstring MatchMode = iota
	// MatchWordPrefix matches a term only at the start of a word: "uva"
	// matches "uvas" but not "chuva".
	MatchWordPrefix
)

// String returns the mode's name.
func (m MatchMode) String() string {
	switch m {
	case MatchSubstring:
		return "substring"
	case MatchWordPrefix:
		return "word-prefix"
	}
	return fmt.Sprintf("MatchMode(%d)", uint8(m))
}

// ScorerOptions configures a [Scorer]. The zero value gives field-weighted
// presence scoring over the agronomy catalog: [ProductFields],
// the default [Weights], the default [Tokenizer], [DefaultSynonyms] and
// substring matching.
type ScorerOptions struct {
	// Fields declares the fields looked at and their weights; nil means
	// ProductFields(). At most 64 fields are used.
	Fields []FieldSpec
	// Weights are the bonuses; a zero field means its default, a
	// negative one switches the bonus off.
	Weights Weights
	// Tokenizer extracts query tokens; its Filters (for example
	// StemFilter) also apply to the terms added by synonym expansion.
	Tokenizer Tokenizer
	// Synonyms expands the query and detects subjects and classes; nil
	// means DefaultSynonyms(). Use &Synonyms{} for none.
	Synonyms *Synonyms
	// Match says how a term matches a field; the zero value is substring
	// matching.
	Match MatchMode
	// BM25, when set, makes the Fields component term-frequency aware
	// and length normalized (see [BM25]); nil keeps presence scoring, where a term earns its field weights once however often
	// it occurs and however long the record is.
	BM25 *BM25
}

// BM25 turns the Fields component of a score into BM25F (Robertson and
// Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
// 2009) over the Scorer's fields. For a query term t found in a record:
//
//	tf(t)  = Σ over fields f of Weight(f)/Wmax × occurrences of t in f / norm(f)
//	norm(f) = 1 − B + B × length(f) / AvgLengths[f]
//	Fields += IDF(t) × Wmax × (K1 + 1) × tf / (tf + K1)
//
// where Wmax is the largest field weight, length(f) the field's words in
// the record and IDF(t) the Scorer.WithIDF hook (1 without one). A term
// found once, in the heaviest field, of average length earns Wmax × IDF,
// exactly its presence score; more occurrences earn more, with diminishing
// returns, and a long field earns less for the same occurrences than a
// short one. The Match and subject/class bonuses are unchanged.
// Occurrences follow the Scorer's MatchMode (with substring matching "uva"
// occurs in "chuva").
//
// BM25 suits FAQs and documents, whose long answers otherwise collect
// every common term; catalog records are short and keep presence scoring.
type BM25 struct {
	// K1 is the term-frequency saturation (default 1.2).
	K1 float64
	// B is the length normalization strength in [0, 1]: 0 means the
	// default 0.75; a negative value turns length normalization off.
	B float64
	// AvgLengths are the collection's mean field lengths in words, by
	// field name ([Vocabulary.AvgFieldWordsAll]); a field without a
	// positive entry is not length normalized. [Scorer.WithAverageLengths]
	// sets them on an existing Scorer.
	AvgLengths map[string]float64
	// Proximity weighs the pairs of consecutive query tokens found next
	// to each other, in query order, with at most a stopword or a word
	// ending between them ("declaração de ajuste" for the tokens
	// "declar", "ajust"): each pair is scored like a term, with the mean
	// IDF of its two tokens, times Proximity, into Breakdown.Proximity.
	// 0 turns pairs off.
	Proximity float64
	// Exact weighs occurrences of the query's own words over those of
	// other words sharing their stem: an occurrence that is, as a whole
	// word, one of the query words a term came from ("registradores" for
	// the term "registr") counts 1 + Exact times, others once. 0 turns it
	// off.
	Exact float64
}

// Defaults of BM25 (its K1 and B fields say them).
const (
	defaultBM25K1 = 1.2
	defaultBM25B  = 0.75
)

// bm25 is a Scorer's resolved BM25: avg is indexed like the field specs.
type bm25 struct {
	k1, b, prox, exact float64
	avg                []float64
	user               BM25
}

// saturate returns Wmax × (K1 + 1) × x / (x + K1).
func (r *bm25) saturate(wmax, x float64) float64 {
	return wmax * (r.k1 + 1) * x / (x + r.k1)
}

// resolve returns p with defaults applied and bad values corrected, for
// the given fields.
func (p BM25) resolve(specs []FieldSpec) *bm25 {
	r := &bm25{k1: p.K1, b: p.B, prox: p.Proximity, exact: p.Exact, avg: make([]float64, len(specs))}
	if !(r.prox > 0) || math.IsInf(r.prox, 0) {
		r.prox = 0
	}
	if !(r.exact > 0) || math.IsInf(r.exact, 0) {
		r.exact = 0
	}
	if !(r.k1 > 0) || math.IsInf(r.k1, 0) {
		r.k1 = defaultBM25K1
	}
	switch {
	case r.b == 0:
		r.b = defaultBM25B
	case r.b < 0 || math.IsNaN(r.b):
		r.b = 0
	case r.b > 1:
		r.b = 1
	}
	for i, f := range specs {
		if a := p.AvgLengths[f.Name]; a > 0 && !math.IsInf(a, 0) {
			r.avg[i] = a
		}
	}
	r.user = BM25{K1: r.k1, B: r.b, Proximity: r.prox, Exact: r.exact, AvgLengths: maps.Clone(p.AvgLengths)}
	if r.b == 0 {
		r.user.B = -1
	}
	return r
}

// norm returns the length normalization of field i with words words.
func (r *bm25) norm(i, words int) float64 {
	if r.b == 0 || r.avg[i] == 0 {
		return 1
	}
	return 1 - r.b + r.b*float64(words)/r.avg[i]
}

// Validate reports options NewScorer would have to correct: a field with
// an empty or repeated name, more than 64 fields, a negative or non-finite
// field weight, a non-finite bonus (a negative one is off, not an error),
// or an unknown match mode. The error wraps [ErrInvalidOptions].
func (o ScorerOptions) Validate() error {
	var errs []string
	seen := make(map[string]bool)
	if len(o.Fields) > maxFields {
		errs = append(errs, fmt.Sprintf("%d fields, at most %d", len(o.Fields), maxFields))
	}
	for i, f := range o.Fields {
		switch {
		case f.Name == "":
			errs = append(errs, fmt.Sprintf("field %d has no name", i))
		case seen[f.Name]:
			errs = append(errs, fmt.Sprintf("field %q declared twice", f.Name))
		}
		seen[f.Name] = true
		if !validWeight(f.Weight) {
			errs = append(errs, fmt.Sprintf("field %q has weight %v", f.Name, f.Weight))
		}
	}
	w := o.Weights
	for _, c := range []struct {
		name string
		v    float64
	}{{"Match", w.Match}, {"Subject", w.Subject}, {"Class", w.Class}, {"Pair", w.Pair}, {"SubjectInTag", w.SubjectInTag}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			errs = append(errs, fmt.Sprintf("weight %s is %v", c.name, c.v))
		}
	}
	if o.Match > MatchWordPrefix {
		errs = append(errs, "unknown match mode "+o.Match.String())
	}
	if p := o.BM25; p != nil {
		if p.K1 < 0 || math.IsNaN(p.K1) || math.IsInf(p.K1, 0) {
			errs = append(errs, fmt.Sprintf("BM25 K1 is %v", p.K1))
		}
		if p.Proximity < 0 || math.IsNaN(p.Proximity) || math.IsInf(p.Proximity, 0) {
			errs = append(errs, fmt.Sprintf("BM25 Proximity is %v", p.Proximity))
		}
		if p.B > 1 || math.IsNaN(p.B) {
			errs = append(errs, fmt.Sprintf("BM25 B is %v, want at most 1", p.B))
		}
		for name, a := range p.AvgLengths {
			if a < 0 || math.IsNaN(a) || math.IsInf(a, 0) {
				errs = append(errs, fmt.Sprintf("BM25 average length of %q is %v", name, a))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, strings.Join(errs, "; "))
	}
	return nil
}

func validWeight(w float64) bool { return w >= 0 && !math.IsInf(w, 0) }

// resolve returns the effective bonuses: zero fields replaced by their
// defaults, negative ones (and invalid ones) by 0.
func (w Weights) resolve() Weights {
	def := defaultWeights()
	r := func(v, d float64) float64 {
		switch {
		case v == 0:
			return d
		case v < 0 || math.IsNaN(v) || math.IsInf(v, 0):
			return 0
		}
		return v
	}
	return Weights{
		Match: r(w.Match, def.Match), Subject: r(w.Subject, def.Subject), Class: r(w.Class, def.Class),
		Pair: r(w.Pair, def.Pair), SubjectInTag: r(w.SubjectInTag, def.SubjectInTag),
	}
}

// Scorer computes the lexical score of records against a query. Scoring is
// done in two steps: [Scorer.Prepare] analyzes the query once (tokens,
// synonym expansion, subjects and classes) and the returned
// [PreparedQuery] scores any number of records.
//
// The score of a record is the sum of:
//
//   - for each query term (the tokens, then the canonical terms added by
//     synonym expansion) and each declared field name whose normalized
//     text contains it: that field's weight (a term found in name and tags
//     earns 3.5 + 4; a term found in two tags earns 4 once);
//   - for each query term found in at least one field: Weights.Match;
//   - Weights.Subject if a subject of the query is found in the record,
//     Weights.Class if a class of the query is, and Weights.Pair
//     if both are;
//   - Weights.SubjectInTag if a subject of the query is found in a Tags
//     field.
//
// With an IDF hook each term's share of the first two items is multiplied
// by its IDF. A subject or class counts only when the query names it
// (through its canonical term or any variant, "videira" for "uva") and the
// record mentions it (again through any variant, matched on whole stemmed
// words, so "mato" is not found in "tomate" nor "uva" in "chuva").
// Bonuses are query-driven: a record about grapes earns no subject bonus
// for a query that names no crop.
//
// A Scorer is immutable and safe for concurrent use.
type Scorer struct {
	specs   []FieldSpec
	weights Weights
	tok     Tokenizer
	syn     *Synonyms
	match   MatchMode
	idf     func(string) float64
	bm25    *bm25 // nil for presence scoring
	wmax    float64
}

// NewScorer returns a Scorer for opts; see [ScorerOptions] for the
// defaults. It never fails: a field with an empty or repeated name and
// fields beyond the 64th are dropped, a negative or non-finite field
// weight or a non-finite bonus becomes 0, an unknown match mode is
// substring. Call
// [ScorerOptions.Validate] first to reject such options instead.
func NewScorer(opts ScorerOptions) *Scorer {
	s := &Scorer{weights: opts.Weights, tok: opts.Tokenizer, syn: opts.Synonyms, match: opts.Match}
	fields := opts.Fields
	if fields == nil {
		fields = ProductFields()
	}
	for _, f := range fields {
		if f.Name == "" || len(s.specs) == maxFields || slices.ContainsFunc(s.specs, func(g FieldSpec) bool { return g.Name == f.Name }) {
			continue
		}
		f.Weight = sanitizeWeight(f.Weight)
		s.specs = append(s.specs, f)
	}
	s.weights = opts.Weights.resolve()
	if s.syn == nil {
		s.syn = DefaultSynonyms()
	}
	if s.match > MatchWordPrefix {
		s.match = MatchSubstring
	}
	if opts.BM25 != nil {
		s.bm25 = opts.BM25.resolve(s.specs)
		for _, f := range s.specs {
			s.wmax = max(s.wmax, f.Weight)
		}
	}
	return s
}

// BM25 returns the Scorer's BM25 parameters, with defaults applied (B is
// -1 when length normalization is off), and whether BM25 is on.
func (s *Scorer) BM25() (BM25, bool) {
	if s.bm25 == nil {
		return BM25{}, false
	}
	p := s.bm25.user
	p.AvgLengths = maps.Clone(p.AvgLengths)
	return p, true
}

// WithAverageLengths returns a copy of s whose BM25 length normalization
// uses avg, the collection's mean field lengths in words by field name
// ([Vocabulary.AvgFieldWordsAll]). A Scorer without BM25 is returned as
// is. s is not modified.
func (s *Scorer) WithAverageLengths(avg map[string]float64) *Scorer {
	if s.bm25 == nil {
		return s
	}
	c := *s
	p := s.bm25.user
	p.AvgLengths = avg
	c.bm25 = p.resolve(s.specs)
	return &c
}

func sanitizeWeight(w float64) float64 {
	if !validWeight(w) {
		return 0
	}
	return w
}

// fieldSpecs returns the fields the Scorer looks at, after NewScorer's
// corrections. The result is a copy.
func (s *Scorer) fieldSpecs() []FieldSpec { return slices.Clone(s.specs) }

// Tokenizer returns the query tokenizer.
func (s *Scorer) Tokenizer() Tokenizer { return s.tok }

// Synonyms returns the synonym table in effect.
func (s *Scorer) Synonyms() *Synonyms { return s.syn }

// PreparedQuery is a query analyzed once by [Scorer.Prepare], ready to
// score records. It is immutable and safe for concurrent use.
type PreparedQuery struct {
	s          *Scorer
	query      string
	tokens     []string
	fallback   bool
	terms      []queryTerm
	mentions   []Mention
	expansions []Mention
	groups     []detectGroup
	det        *detector
	// ac matches terms and groups in one pass; nil when the patterns are
	// too long, then the reference path (strings.Contains and det) runs.
	ac *matcher
}

type queryTerm struct {
	text    string
	idf     float64
	synonym bool
	// surfaces are the query words (normalized, not filtered) the term
	// came from, for BM25.Exact; set only when it is on.
	surfaces []string
}

// detectGroup is a subject or class the query names.
type detectGroup struct {
	cat       Category
	canonical string
}

// detector finds the query's subjects and classes in record text in
// one pass over its words: a word is stemmed and looked up only when its
// first three bytes may start some phrase (a hashed bitset says so).
type detector struct {
	prefixes [prefixBits / 64]uint64
	byFirst  map[string][]groupPhrase
}

const prefixBits = 4096

type groupPhrase struct {
	group int
	words []string // stemmed; words[0] is the key in byFirst
}

// prefixKey hashes the first three bytes of w into the detector's bitset.
// A stem is a prefix of its word and, when shorter than three bytes, the
// whole word (Stem never leaves fewer than three), so a word and its stem
// share the key.
func prefixKey(w string) uint32 {
	var b0, b1, b2 uint32
	switch len(w) {
	case 0:
		return 0
	case 1:
		b0, b1, b2 = uint32(w[0]), 256, 257
	case 2:
		b0, b1, b2 = uint32(w[0]), uint32(w[1]), 256
	default:
		b0, b1, b2 = uint32(w[0]), uint32(w[1]), uint32(w[2])
	}
	return (b0*0x9E3779B1 + b1*0x85EBCA77 + b2*0xC2B2AE3D) >> (32 - 12)
}

func (d *detector) add(group int, p phrase) {
	k := prefixKey(p.words[0])
	d.prefixes[k/64] |= 1 << (k % 64)
	d.byFirst[p.words[0]] = append(d.byFirst[p.words[0]], groupPhrase{group: group, words: p.words})
}

// scan marks in state the groups found in the normalized text; tags says
// the text is a Tags field.
func (d *detector) scan(text string, groups []detectGroup, state []uint8, tags bool) {
	for i := 0; i < len(text); {
		start, end := nextWord(text, i)
		if start < 0 {
			return
		}
		i = end
		if k := prefixKey(text[start:end]); d.prefixes[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		markGroups(text, start, d.byFirst[Stem(text[start:end])], groups, state, tags)
	}
}

// Prepare analyzes query: tokens (with the Scorer's Tokenizer), subjects,
// classes and generic terms it names (with the Scorer's Synonyms), and
// the query terms: the tokens, the hyphenated form of a code typed
// without its hyphen ("2,4d" → "2,4-d"), then the canonical terms of the
// synonyms found that are not tokens already, passed through the
// Tokenizer's Filters. At most 64 terms are kept.
func (s *Scorer) Prepare(query string) *PreparedQuery {
	tokens, fallback := s.tok.Analyze(query)
	q := &PreparedQuery{s: s, query: query, tokens: tokens, fallback: fallback}
	q.mentions = s.syn.Detect(query)
	terms := slices.Clone(tokens)
	// A diminutive the synonym table knows only in its base form
	// ("lagartinha" → "lagarta") searches the base too.
	for _, m := range q.mentions {
		for _, w := range strings.Fields(m.Text) {
			for _, b := range s.syn.undiminished(w) {
				for _, t := range s.tok.Tokens(b) {
					if !slices.Contains(terms, t) {
						terms = append(terms, t)
					}
				}
			}
		}
	}
	// A code typed without its hyphen ("2,4D") searches the hyphenated
	// form the records write ("2,4-D") too.
	for _, t := range tokens {
		if h := hyphenatedCode(t); h != "" && !slices.Contains(terms, h) {
			terms = append(terms, h)
		}
	}
	for _, m := range q.mentions {
		added := false
		expanded := []string{m.Term}
		for _, f := range s.tok.Filters {
			if f != nil {
				expanded = f.Filter(expanded)
			}
		}
		if m.Category == CategoryAlias && strings.Contains(m.Term, " ") {
			// A translation's phrase is written with spaces, the records
			// often hyphenate it ("asian soybean rust" → "ferrugem
			// asiática", leaflets "ferrugem-asiática"): the hyphenated
			// phrase, unstemmed, is a term too (a stemming scorer's words
			// match it at their starts).
			expanded = append(expanded, strings.ReplaceAll(m.Term, " ", "-"))
		}
		for _, t := range expanded {
			if t != "" && !slices.Contains(terms, t) {
				terms = append(terms, t)
				added = true
			}
		}
		if added {
			q.expansions = append(q.expansions, m)
		}
		if m.Category == CategorySubject || m.Category == CategoryClass {
			if e := s.syn.entry(m.Category, m.Term); e != nil && len(q.groups) < maxTerms {
				if q.det == nil {
					q.det = &detector{byFirst: make(map[string][]groupPhrase)}
				}
				for _, p := range e.phrases {
					q.det.add(len(q.groups), p)
				}
				q.groups = append(q.groups, detectGroup{cat: e.cat, canonical: e.canonical})
			}
		}
	}
	if len(terms) > maxTerms {
		terms = terms[:maxTerms]
	}
	q.terms = make([]queryTerm, len(terms))
	for i, t := range terms {
		w := 1.0
		if s.idf != nil {
			if w = s.idf(t); !validWeight(w) {
				w = 0
			}
		}
		q.terms[i] = queryTerm{text: t, idf: w, synonym: i >= len(tokens)}
	}
	if s.bm25 != nil && s.bm25.exact > 0 && !fallback {
		q.addSurfaces(len(tokens))
	}
	q.ac = newMatcher(q.terms, q.det)
	return q
}

// hyphenatedCode returns token (in Normalize form) with a hyphen between
// a digit and the letter right after it, the way product and active
// ingredient codes are written ("2,4d" → "2,4-d", "mcpa40d" →
// "mcpa40-d"), or "" when token has no such place or is a number with a
// unit a record would not hyphenate either: only a token holding a
// punctuation mark between digits ("2,4d") or ending in one letter after
// its digits ("24d") qualifies.
func hyphenatedCode(token string) string {
	for i := 1; i < len(token); i++ {
		if !isDigit(token[i-1]) || !isLetter(token[i]) {
			continue
		}
		code := strings.ContainsAny(token[:i], ",.") || i == len(token)-1
		if !code {
			return ""
		}
		return token[:i] + "-" + token[i:]
	}
	return ""
}

func isDigit(b byte) bool  { return b >= '0' && b <= '9' }
func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

// queryText returns the query as given to Prepare.
func (q *PreparedQuery) queryText() string { return q.query }

// Tokens returns the query tokens (a copy).
func (q *PreparedQuery) Tokens() []string { return slices.Clone(q.tokens) }

// Fallback reports whether the tokens are the tokenizer's fallback: the
// whole normalized query, because no token survived.
func (q *PreparedQuery) Fallback() bool { return q.fallback }

// Terms returns the terms records are matched against: the tokens, then
// the synonym expansions (a copy).
func (q *PreparedQuery) Terms() []string {
	out := make([]string, len(q.terms))
	for i, t := range q.terms {
		out[i] = t.text
	}
	return out
}

// Mentions returns every canonical term the query names, in order of
// appearance (a copy).
func (q *PreparedQuery) Mentions() []Mention { return slices.Clone(q.mentions) }

// Expansions returns the mentions that added a term to the query: the
// synonyms used (a copy).
func (q *PreparedQuery) Expansions() []Mention { return slices.Clone(q.expansions) }

// Signals explain a record's score. What belongs to the query rather than
// to the record (its tokens, whether they fell back to the whole text, the
// synonyms that added a term) is on the [PreparedQuery].
type Signals struct {
	// Matched lists the query terms found in the record, in query order,
	// with the fields each was found in.
	Matched []TermMatch `json:"matched,omitempty"`
	// Subjects are the query's subjects found in the record (canonical
	// terms as written in the synonym table).
	Subjects []string `json:"subjects,omitempty"`
	// Classes are the query's classes found in the record.
	Classes []string `json:"classes,omitempty"`
	// SubjectInTag reports a subject found in a Tags field.
	SubjectInTag bool `json:"subject_in_tag"`
	// Pair reports both a subject and a class found.
	Pair bool `json:"pair"`
	// Breakdown splits the score into its components; the score is
	// Breakdown.Total().
	Breakdown Breakdown `json:"breakdown"`
}

// TermMatch is one query term found in a record.
type TermMatch struct {
	// Term is the normalized query term.
	Term string `json:"term"`
	// Fields are the names of the fields it was found in, in the order of
	// the Scorer's fields.
	Fields []string `json:"fields"`
	// Synonym reports a term added by synonym expansion.
	Synonym bool `json:"synonym,omitempty"`
	// IDF is the term's weight: 1 unless an IDF hook is set.
	IDF float64 `json:"idf"`
	// TF is the term's field-weighted, length-normalized occurrence
	// count, tf(t) of [BM25], when the Scorer uses BM25; 0 otherwise.
	TF float64 `json:"tf,omitempty"`
}

// Breakdown splits a score into its components.
type Breakdown struct {
	// Fields is the sum of the field weights of the matched terms (times
	// their IDF), or their BM25F contributions when the Scorer uses
	// [BM25].
	Fields float64 `json:"fields"`
	// Matches is the Match bonus times the number of matched terms.
	Matches float64 `json:"matches"`
	// Subject is the subject bonus earned, or 0.
	Subject float64 `json:"subject"`
	// Class is the class bonus earned, or 0.
	Class float64 `json:"class"`
	// Pair is the subject+class bonus earned, or 0.
	Pair float64 `json:"pair"`
	// SubjectInTag is the subject-in-tag bonus earned, or 0.
	SubjectInTag float64 `json:"subject_in_tag"`
	// Proximity is the score of the query's token pairs found together
	// (see [BM25].Proximity), or 0.
	Proximity float64 `json:"proximity,omitempty"`
}

// Total returns the sum of the components.
func (b Breakdown) Total() float64 {
	return b.Fields + b.Matches + b.Subject + b.Class + b.Pair + b.SubjectInTag + b.Proximity
}

// Score returns the lexical score of rec and the signals explaining it.
// Pass a pointer (for example &items[i]) to avoid copying the record into
// the interface.
func (q *PreparedQuery) Score(rec Record) (float64, Signals) {
	var sig Signals
	score := q.eval(rec, &sig)
	return score, sig
}

// ScoreOnly returns the same score as Score without building Signals. It
// does not allocate when rec is a pointer (for example &items[i]) and the
// record's text is already normalized ASCII: use it to rank many
// candidates and call Score for the hits you show.
func (q *PreparedQuery) ScoreOnly(rec Record) float64 {
	return q.eval(rec, nil)
}

const (
	groupFound uint8 = 1 << iota
	groupInTag
)

func (q *PreparedQuery) eval(rec Record, sig *Signals) float64 {
	if q.s.bm25 == nil {
		return q.evalWith(rec, sig, nil)
	}
	var tf tfState
	tf.start(q)
	return q.evalWith(rec, sig, &tf)
}

// evalWith scores rec, counting occurrences in tf when it is not nil.
func (q *PreparedQuery) evalWith(rec Record, sig *Signals, tf *tfState) float64 {
	if rec == nil {
		return q.finish(nil, nil, nil, sig)
	}
	var termMask [maxTerms]uint64
	var groupState [maxTerms]uint8
	s := q.s
	_, normalized := rec.(NormalizedFields)
	for i, n := 0, rec.NumFields(); i < n; i++ {
		f := rec.Field(i)
		si := s.specIndex(f.Name)
		if si < 0 {
			continue
		}
		text := f.Text
		if !normalized {
			text = Normalize(text)
		}
		if text == "" {
			continue
		}
		bit := uint64(1) << si
		tags := s.specs[si].Tags
		if tf != nil {
			tf.field(s, si, text)
		}
		if q.ac != nil {
			q.ac.scan(text, s.match == MatchWordPrefix, termMask[:len(q.terms)], bit, q.groups, groupState[:len(q.groups)], tags, tf)
			continue
		}
		if tf != nil {
			s.occurrences(text, q.terms, func(ti, start int) {
				termMask[ti] |= bit
				tf.occur(ti, start)
			})
		} else {
			for ti := range q.terms {
				if termMask[ti]&bit == 0 && s.contains(text, q.terms[ti].text) {
					termMask[ti] |= bit
				}
			}
		}
		if q.det != nil {
			q.det.scan(text, q.groups, groupState[:len(q.groups)], tags)
		}
	}
	return q.finish(termMask[:len(q.terms)], groupState[:len(q.groups)], tf, sig)
}

func (q *PreparedQuery) finish(termMask []uint64, groupState []uint8, tf *tfState, sig *Signals) float64 {
	s := q.s
	var b Breakdown
	matched, fieldRefs := 0, 0
	for ti, m := range termMask {
		if m == 0 {
			continue
		}
		matched++
		fieldRefs += bits.OnesCount64(m)
		idf := q.terms[ti].idf
		if tf != nil {
			b.Fields += idf * s.bm25.saturate(s.wmax, tf.tf[ti])
		} else {
			var w float64
			for ; m != 0; m &= m - 1 {
				w += s.specs[bits.TrailingZeros64(m)].Weight
			}
			b.Fields += idf * w
		}
		b.Matches += idf * s.weights.Match
	}
	if tf != nil && s.bm25.prox > 0 {
		for ti := 1; ti < tf.ntok; ti++ {
			if x := tf.ptf[ti]; x > 0 {
				idf := (q.terms[ti-1].idf + q.terms[ti].idf) / 2
				b.Proximity += s.bm25.prox * idf * s.bm25.saturate(s.wmax, x)
			}
		}
	}
	subjects, classes, inTag := 0, 0, false
	for gi, st := range groupState {
		if st&groupFound == 0 {
			continue
		}
		if q.groups[gi].cat == CategorySubject {
			subjects++
			inTag = inTag || st&groupInTag != 0
		} else {
			classes++
		}
	}
	if subjects > 0 {
		b.Subject = s.weights.Subject
	}
	if classes > 0 {
		b.Class = s.weights.Class
	}
	if subjects > 0 && classes > 0 {
		b.Pair = s.weights.Pair
	}
	if inTag {
		b.SubjectInTag = s.weights.SubjectInTag
	}
	total := b.Total()
	if sig == nil {
		return total
	}
	*sig = Signals{
		Matched:      make([]TermMatch, 0, matched),
		SubjectInTag: inTag,
		Pair:         subjects > 0 && classes > 0,
		Breakdown:    b,
	}
	names := make([]string, 0, fieldRefs)
	for ti, m := range termMask {
		if m == 0 {
			continue
		}
		start := len(names)
		for ; m != 0; m &= m - 1 {
			names = append(names, s.specs[bits.TrailingZeros64(m)].Name)
		}
		t := q.terms[ti]
		tm := TermMatch{Term: t.text, Fields: names[start:len(names):len(names)], Synonym: t.synonym, IDF: t.idf}
		if tf != nil {
			tm.TF = tf.tf[ti]
		}
		sig.Matched = append(sig.Matched, tm)
	}
	if subjects+classes > 0 {
		found := make([]string, 0, subjects+classes)
		for gi, st := range groupState {
			if st&groupFound != 0 && q.groups[gi].cat == CategorySubject {
				found = append(found, q.groups[gi].canonical)
			}
		}
		for gi, st := range groupState {
			if st&groupFound != 0 && q.groups[gi].cat == CategoryClass {
				found = append(found, q.groups[gi].canonical)
			}
		}
		if subjects > 0 {
			sig.Subjects = found[:subjects:subjects]
		}
		if classes > 0 {
			sig.Classes = found[subjects:]
		}
	}
	return total
}

// specIndex returns the index of the field spec named name, or -1.
func (s *Scorer) specIndex(name string) int {
	for i := range s.specs {
		if s.specs[i].Name == name {
			return i
		}
	}
	return -1
}

// contains reports whether term matches the normalized text under the
// Scorer's MatchMode.
func (s *Scorer) contains(text, term string) bool {
	if s.match != MatchWordPrefix {
		return strings.Contains(text, term)
	}
	if term == "" {
		return true
	}
	first, _ := decodeRune(term, 0)
	for from := 0; ; {
		i := strings.Index(text[from:], term)
		if i < 0 {
			return false
		}
		i += from
		if !isWordRune(first) || isWordStart(text, i) {
			return true
		}
		from = i + 1
	}
}

// occurrences calls fn for every occurrence of every term in the
// normalized text under the Scorer's MatchMode, in the matcher's order:
// by end offset, longer terms first. It is the reference path of the
// matcher's counting.
func (s *Scorer) occurrences(text string, terms []queryTerm, fn func(term, start int)) {
	type occ struct{ term, start, end int }
	var all []occ
	for ti, t := range terms {
		if t.text == "" {
			continue
		}
		first, _ := decodeRune(t.text, 0)
		prefix := s.match == MatchWordPrefix && isWordRune(first)
		for from := 0; ; {
			i := strings.Index(text[from:], t.text)
			if i < 0 {
				break
			}
			i += from
			if !prefix || isWordStart(text, i) {
				all = append(all, occ{ti, i, i + len(t.text)})
			}
			from = i + 1 // overlapping, as the matcher counts
		}
	}
	slices.SortStableFunc(all, func(a, b occ) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return b.end - b.start - (a.end - a.start)
	})
	for _, o := range all {
		fn(o.term, o.start)
	}
}

// addSurfaces records, for each of the first ntok terms (the query's
// tokens), the query words that the Tokenizer's filters turn into it.
func (q *PreparedQuery) addSurfaces(ntok int) {
	tok := q.s.tok
	for _, w := range tok.split(Normalize(q.query), nil) {
		f := []string{w}
		for _, flt := range tok.Filters {
			if flt != nil {
				f = flt.Filter(f)
			}
		}
		if len(f) != 1 {
			continue
		}
		for ti := range min(ntok, len(q.terms)) {
			if t := &q.terms[ti]; t.text == f[0] && !slices.Contains(t.surfaces, w) {
				t.surfaces = append(t.surfaces, w)
			}
		}
	}
}

// tfState accumulates a record's BM25 term and pair frequencies.
type tfState struct {
	tf   [maxTerms]float64 // per term
	ptf  [maxTerms]float64 // per token pair (ti-1, ti), at ti
	last [maxTerms]int     // start of term's last occurrence in the field, or -1
	lens [maxTerms]int     // term lengths in bytes
	fw   float64           // the current field's weight / Wmax / norm
	ntok int               // query tokens (pairs are between tokens)
	// For BM25.Exact: the current field's text, the weight of an exact
	// occurrence relative to another, and each term's query words.
	text  string
	exact float64
	surf  [maxTerms][]string
}

// start prepares the state for the query's terms.
func (t *tfState) start(q *PreparedQuery) {
	t.ntok = min(len(q.tokens), len(q.terms))
	for i := range q.terms {
		t.lens[i] = len(q.terms[i].text)
		t.surf[i] = q.terms[i].surfaces
	}
	if q.s.bm25 != nil {
		t.exact = q.s.bm25.exact
	}
}

// field starts a field: its weight and length normalization.
func (t *tfState) field(s *Scorer, si int, text string) {
	t.fw = 0
	t.text = text
	if s.wmax > 0 {
		t.fw = s.specs[si].Weight / s.wmax / s.bm25.norm(si, countWords(text))
	}
	for i := range t.ntok {
		t.last[i] = -1
	}
}

// proximityGap is how many bytes may separate the end of a query token's
// occurrence from the start of the next token's for the two to count as
// a pair: room for a word suffix the stem left out and a stopword or two
// ("declar|acao de| ajuste").
const proximityGap = 16

// occur counts an occurrence of term ti starting at byte start.
func (t *tfState) occur(ti, start int) {
	w := t.fw
	if t.exact > 0 && len(t.surf[ti]) > 0 && isWordStart(t.text, start) &&
		slices.Contains(t.surf[ti], t.text[start:wordEnd(t.text, start)]) {
		w *= 1 + t.exact
	}
	t.tf[ti] += w
	if ti >= t.ntok {
		return
	}
	if ti > 0 {
		if l := t.last[ti-1]; l >= 0 && start > l && start-l <= t.lens[ti-1]+proximityGap {
			t.ptf[ti] += t.fw
		}
	}
	t.last[ti] = start
}

// countWords returns the number of words of the normalized text: runs of
// letters and digits, where any byte of a multi-byte rune counts as a
// letter (Normalize leaves few).
func countWords(text string) int {
	n := 0
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		w := c >= utf8.RuneSelf || asciiWord[c]
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// wordsAt reports whether the words of text starting at i have the given
// stems.
func wordsAt(text string, i int, words []string) bool {
	for k, w := range words {
		if k > 0 {
			start, _ := nextWord(text, i)
			if start < 0 {
				return false
			}
			i = start
		}
		end := wordEnd(text, i)
		if Stem(text[i:end]) != w {
			return false
		}
		i = end
	}
	return true
}
