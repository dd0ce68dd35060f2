package rag

import (
	"context"
	"fmt"
	"github.com/hybridrag/hybridrag/internal/morph"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/storage"
)

// Defaults of the vocabulary-driven query analysis.
const (
	// defaultCorrectionMinDF is the least number of records an indexed
	// word must appear in to be the correction of a misspelled token. One:
	// in a small kind most words are in one record ("aceitam" of the 36
	// FAQs' "Quais formas de pagamento vocês aceitam?", so "vcs aseitam
	// pix?" went uncorrected at 2). Lowered from 2 with every chat set,
	// the cross-domain evaluation and the four retrieval sets unchanged
	// but testdata/chat_eval_blind.jsonl's precision (0.803 → 0.806) and
	// the agro store's own precision in -cross (0.753 → 0.771).
	defaultCorrectionMinDF = 1
	// vocabularyPage is the page size used to list a store's records.
	vocabularyPage = 500
)

// kindLexicon is what the Searcher derived from one kind's vocabulary: the
// vocabulary and the scorer weighting terms by their IDF.
type kindLexicon struct {
	vocab  *lexical.Vocabulary
	scorer *lexical.Scorer
	// idf weighs a term for evidence; nil weighs every term 1. df is the
	// number of records holding the term and docs the number of records;
	// nil and 0 when there is no vocabulary.
	idf  func(string) float64
	df   func(string) int
	docs int
}

// lexicons caches the per-kind lexicons; the zero value is empty.
type lexicons struct {
	mu    sync.Mutex // serializes builds
	kinds [3]atomic.Pointer[kindLexicon]
}

// lexicon returns the vocabulary and scorer to analyze a query of kind,
// built once from the store's records (a failed build is retried by the
// next search: this search gets the base scorer and no vocabulary).
func (s *Searcher) lexicon(ctx context.Context, kind storage.OwnerKind, base *lexical.Scorer) *kindLexicon {
	l, err := s.buildLexicon(ctx, kind, base)
	if err != nil {
		return &kindLexicon{scorer: base} // retried by the next search
	}
	return l
}

// buildLexicon is lexicon, with the error of a failed build.
func (s *Searcher) buildLexicon(ctx context.Context, kind storage.OwnerKind, base *lexical.Scorer) (*kindLexicon, error) {
	if !s.opts.Lexical.Vocabulary.enabled(true) {
		return &kindLexicon{scorer: base}, nil
	}
	slot := &s.lex.kinds[kindIndex(kind)]
	if l := slot.Load(); l != nil {
		return l, nil
	}
	k := kindOf(kind)
	if k == nil {
		return nil, fmt.Errorf("%w: kind %q", ErrInvalidQuery, kind)
	}
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if l := slot.Load(); l != nil {
		return l, nil
	}
	l, err := s.readLexicon(ctx, k, base)
	if err != nil {
		return nil, err
	}
	slot.Store(l)
	return l, nil
}

// Warm builds now what the first search of each kind would otherwise
// build on its own: the vocabularies behind typo correction and IDF
// weights, the calibration samples behind Hit.Evidence and the default lexicon of typo correction (read once per
// process, about 0.1 s). It returns the first
// failure. Without Warm the first searches build them, and a failed build
// leaves those searches without them, to be retried by the next search;
// call Warm at start-up to fail loudly instead. After Refresh, Warm
// builds again. Warm is safe to call during
// searches; calling it again when nothing was refreshed does no I/O.
func (s *Searcher) Warm(ctx context.Context) error {
	if s.opts.Lexical.Lexicon == nil && s.opts.Lexical.TypoCorrection != Off && s.opts.Lexical.Vocabulary != Off {
		lexicon.Default()
	}
	morph.Load()
	for _, k := range kinds {
		if _, err := s.buildLexicon(ctx, k.ownerKind(), s.scorers[k.slot()]); err != nil {
			return err
		}
		if _, err := s.buildCalibration(ctx, k.ownerKind()); err != nil {
			return err
		}
	}
	return nil
}

// readLexicon builds the lexicon of kind k from the records stored now.
func (s *Searcher) readLexicon(ctx context.Context, k kindDeriver, base *lexical.Scorer) (*kindLexicon, error) {
	v, err := k.buildVocabulary(ctx, s.store)
	if err != nil {
		return nil, fmt.Errorf("rag: build %s vocabulary: %w", k.ownerKind(), err)
	}
	return s.newLexicon(v, base), nil
}

func (s *Searcher) newLexicon(v *lexical.Vocabulary, base *lexical.Scorer) *kindLexicon {
	l := &kindLexicon{vocab: v, scorer: base}
	if v.Docs() > 0 {
		l.idf = v.IDFWeights(s.opts.Lexical.idf)
		l.df, l.docs = v.DocFreq, v.Docs()
	}
	if v.Docs() > 0 && s.opts.Lexical.IDF.enabled(true) && base.IDF() == nil {
		l.scorer = base.WithIDF(v.IDFWeights(s.opts.Lexical.idf))
	}
	if p, ok := l.scorer.BM25(); ok && len(p.AvgLengths) == 0 {
		l.scorer = l.scorer.WithAverageLengths(v.AvgFieldWordsAll())
	}
	if !s.opts.Lexical.TypoCorrection.enabled(true) {
		l.vocab = nil
	}
	return l
}

// Refresh drops what the Searcher derived from the stored records — the
// vocabularies behind typo correction and IDF weights, the calibration
// samples behind Hit.Evidence and the names of the inactive catalog items
// the Pipeline tells a customer are discontinued — so that the next search of each kind (or
// Warm) rebuilds them from the records then stored, before answering.
// Searches notice writes by themselves within about a second (see the
// package doc, Freshness); Refresh is for a caller that needs its very
// next search to see its own write. A stale vocabulary only weakens typo
// correction and IDF weights (the words as typed are still searched), it
// never hides a record. It is safe to call during searches.
func (s *Searcher) Refresh() {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	for i := range s.lex.kinds {
		s.lex.kinds[i].Store(nil)
	}
	s.calib.mu.Lock()
	defer s.calib.mu.Unlock()
	for i := range s.calib.kinds {
		s.calib.kinds[i].Store(nil)
	}
	s.disc.Store(nil)
}

// correctQuery applies typo correction to text with the kind's
// vocabulary: words that are stopwords, belong to the synonym table or
// are words of the language (LexicalOptions.Lexicon) are never corrected,
// nor are valid inflections of indexed words: a word
// whose stem under the kind's scorer (its tokenizer's filters, the
// Snowball stem for FAQs and documents) starts an indexed word
// ("entregar" → "entreg", found in "entrega") is what the lexical leg
// matches already, not a typo.
func (s *Searcher) correctQuery(text string, l *kindLexicon) (string, []lexical.Correction) {
	if l.vocab == nil {
		return text, nil
	}
	syn := synonymWords(l.scorer.Synonyms())
	tok := l.scorer.Tokenizer()
	stop := stopwordsOf(tok)
	lex := s.opts.Lexical.Lexicon
	if lex == nil {
		lex = lexicon.Default()
	}
	return l.vocab.CorrectText(text, s.opts.Lexical.correctionMinDF, func(w string) bool {
		if stop.Contains(w) || syn[w] || lex.Known(w) {
			return true
		}
		st := stemWith(tok.Filters, w)
		return st != w && l.vocab.Known(st)
	})
}

// stemWith returns w after the token filters (the scorer's stemmer), or
// w itself when they drop it or leave several tokens.
func stemWith(filters []lexical.TokenFilter, w string) string {
	if len(filters) == 0 {
		return w
	}
	out := textutil.Filter(w, filters)
	if len(out) != 1 || out[0] == "" {
		return w
	}
	return out[0]
}

var synWordsCache sync.Map // *lexical.Synonyms → map[string]bool

// synonymWords returns the normalized words of every term and variant of
// syn.
func synonymWords(syn *lexical.Synonyms) map[string]bool {
	if syn == nil {
		return nil
	}
	if m, ok := synWordsCache.Load(syn); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	tok := lexical.Tokenizer{MinLength: -1, MaxTokens: -1, Stopwords: lexical.NewStopwordSet(), Compounds: lexical.PartsOnly}
	for _, e := range syn.Entries() {
		for _, t := range append([]string{e.Canonical}, e.Variants...) {
			for _, w := range tok.Tokens(t) {
				m[w] = true
			}
		}
	}
	synWordsCache.Store(syn, m)
	return m
}

// withTypedWords returns terms plus the words as typed of the corrections
// (when not already there), so that a record holding the typed word
// itself, added after the vocabulary was built, is still a candidate.
func withTypedWords(terms []string, corrections []lexical.Correction) []string {
	if len(corrections) == 0 {
		return terms
	}
	out := slices.Clone(terms)
	for _, c := range corrections {
		if !slices.Contains(out, c.From) {
			out = append(out, c.From)
		}
	}
	return out
}

// storyKnown reports whether the story of a message (the words outside
// the clause that asks) stays in the store's domain: none of its words is
// an everyday word of the language (among the generalRareRank most
// common, EvidenceOptions.Frequencies) that no record of any kind holds.
// "meu filho quer um videogame, aceitam cartão?" or "quebrei o braço
// jogando bola, qual o horário?" name things of another life ("filho",
// "braço"), so the clause alone is not what is asked; a rare word
// ("unpaved", "Goiás"), a function word, a verb form or a number says
// nothing either way.
func (s *Searcher) storyKnown(ctx context.Context, story string) bool {
	var lexs []*kindLexicon
	for _, k := range kinds {
		l := s.lexicon(ctx, k.ownerKind(), s.scorers[k.slot()])
		if l.vocab == nil {
			return true // no vocabulary: nothing tells the store's words
		}
		lexs = append(lexs, l)
	}
	stop := stopwordsOf(s.scorers[faqKind.index].Tokenizer())
	freq := s.evidence.Frequencies
	for _, w := range textutil.NormWords(story) {
		if r := freq.Rank(w); r == 0 || r > generalRareRank || stop.Contains(w) || freq.Function(w) || morph.VerbForm(w) {
			continue
		}
		if !slices.ContainsFunc(lexs, func(l *kindLexicon) bool {
			return l.vocab.Known(w) || l.vocab.Known(stemWith(l.scorer.Tokenizer().Filters, w))
		}) {
			return false
		}
	}
	return true
}

// stopwordsOf is tok's stopword set, the default one when it sets none.
func stopwordsOf(tok lexical.Tokenizer) *lexical.StopwordSet {
	if tok.Stopwords != nil {
		return tok.Stopwords
	}
	return lexical.DefaultStopwords()
}
