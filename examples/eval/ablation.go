package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hybridrag/hybridrag/internal/tuning"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/fields"
	"github.com/hybridrag/hybridrag/vector"
)

// ablation holds the switches that turn the Searcher's tuned components
// off or reshape them, so that each one's effect can be measured alone.
type ablation struct {
	vocab, typo, idf bool
	idfOpts          lexical.IDFOptions
	minDF            int
	stem             string
	match            string
	bm25             bool
	maxTokens        int
	proximity        float64
	exact            float64
	catBM25          bool
	fileWeight       float64 // catalog file text weight; < 0: rag's default
	synonyms         string
	syn              *lexical.Synonyms // loaded from synonyms
}

func (a *ablation) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.vocab, "vocab", true, "vocabulary-driven analysis (typo correction and IDF); false is the seeds' behaviour")
	fs.BoolVar(&a.typo, "typo", true, "typo correction of query words")
	fs.BoolVar(&a.idf, "idf", true, "IDF weights of query terms")
	fs.Float64Var(&a.idfOpts.Reference, "idf-ref", 0, "IDF reference document `fraction` (default lexical's 0.1)")
	fs.Float64Var(&a.idfOpts.Floor, "idf-floor", 0, "IDF weight `floor` (default lexical's 0.1)")
	fs.Float64Var(&a.idfOpts.Cap, "idf-cap", 0, "IDF weight `cap` (default lexical's 3)")
	fs.StringVar(&a.stem, "stem", "", "query token `stemmer` of the default scorers: none|light (lexical.StemFilter)|snowball (snowball.Filter); default: none for the catalog, snowball for FAQs and documents")
	fs.StringVar(&a.match, "match", "", "`mode` of the default scorers: substring (the seeds' ILIKE) | word-prefix (lexical.MatchWordPrefix); default: substring for the catalog, word-prefix for FAQs and documents")
	fs.BoolVar(&a.bm25, "bm25", true, "BM25F term weighting in the default FAQ and document scorers (false: the seeds' presence scoring)")
	fs.Float64Var(&a.proximity, "proximity", -1, "BM25 token-pair `weight` of the default FAQ and document scorers (default rag's)")
	fs.BoolVar(&a.catBM25, "catalog-bm25", false, "BM25F term weighting in the catalog scorer too (not the default: flat on the AGROFIT tune half)")
	fs.Float64Var(&a.exact, "exact", -1, "BM25 exact-word `weight` of the default FAQ and document scorers (lexical.BM25.Exact; default rag's)")
	fs.Float64Var(&a.fileWeight, "file-weight", -1, "lexicalScore `weight` of catalog items' attached file text (default fields.CatalogScorer's, 3; 0 leaves files out, as the seeds did)")
	fs.IntVar(&a.maxTokens, "max-tokens", 0, "query token `cap` of the default scorers (default: 8 for the catalog, rag.DefaultQuestionMaxTokens for FAQs and documents)")
	fs.StringVar(&a.synonyms, "synonyms", "", "domain synonym table `file` (JSON, lexical.LoadSynonyms format) merged over the default pt-BR table")
	fs.IntVar(&a.minDF, "min-df", 0, "least `records` a correction must appear in (default rag's 1)")
}

// load reads the -synonyms table, if any.
func (a *ablation) load() error {
	if a.synonyms == "" {
		return nil
	}
	f, err := os.Open(a.synonyms)
	if err != nil {
		return fmt.Errorf("-synonyms: %w", err)
	}
	defer f.Close()
	if a.syn, err = lexical.LoadSynonyms(f); err != nil {
		return fmt.Errorf("-synonyms %s: %w", a.synonyms, err)
	}
	return nil
}

// searcherOptions returns the Searcher options of the switches.
func (a ablation) searcherOptions() rag.SearcherOptions {
	off := func(on bool) rag.Toggle {
		if on {
			return 0
		}
		return rag.Off
	}
	o := rag.SearcherOptions{Lexical: rag.LexicalOptions{
		Vocabulary: off(a.vocab), TypoCorrection: off(a.typo), IDF: off(a.idf),
	}}
	tuning.SetLexical(&o, tuning.Lexical{IDF: a.idfOpts, CorrectionMinDF: a.minDF})
	if a.stem != "" || a.match != "" || !a.bm25 || a.maxTokens != 0 || a.proximity >= 0 || a.exact >= 0 || a.catBM25 || a.fileWeight >= 0 || a.syn != nil {
		catalog := fields.CatalogScorer()
		if a.fileWeight >= 0 {
			catalog.Fields = withFileWeight(catalog.Fields, a.fileWeight)
		}
		if a.catBM25 {
			catalog.BM25 = &lexical.BM25{}
		}
		o.Kinds.Catalog.Scorer = lexical.NewScorer(a.adjust(catalog))
		o.Kinds.FAQs.Scorer = lexical.NewScorer(a.adjust(fields.FAQScorer()))
		o.Kinds.Documents.Scorer = lexical.NewScorer(a.adjust(fields.DocumentScorer()))
	}
	return o
}

// withFileWeight returns the catalog fields with the attached file text
// ("files") weighing w, or left out when w is 0.
func withFileWeight(fs []lexical.FieldSpec, w float64) []lexical.FieldSpec {
	out := make([]lexical.FieldSpec, 0, len(fs))
	for _, f := range fs {
		if f.Name == "files" {
			if w == 0 {
				continue
			}
			f.Weight = w
		}
		out = append(out, f)
	}
	return out
}

// adjust applies the scorer switches to one kind's default options.
func (a ablation) adjust(o lexical.ScorerOptions) lexical.ScorerOptions {
	switch a.stem {
	case "none":
		o.Tokenizer.Filters = nil
	case "light":
		o.Tokenizer.Filters = []lexical.TokenFilter{lexical.StemFilter{}}
	case "snowball":
		o.Tokenizer.Filters = []lexical.TokenFilter{snowball.Filter{}}
	}
	switch a.match {
	case "substring":
		o.Match = lexical.MatchSubstring
	case "word-prefix":
		o.Match = lexical.MatchWordPrefix
	}
	if !a.bm25 {
		o.BM25 = nil
	}
	if a.proximity >= 0 && o.BM25 != nil {
		p := *o.BM25
		p.Proximity = a.proximity
		o.BM25 = &p
	}
	if a.exact >= 0 && o.BM25 != nil {
		p := *o.BM25
		p.Exact = a.exact
		o.BM25 = &p
	}
	if a.maxTokens != 0 {
		o.Tokenizer.MaxTokens = a.maxTokens
	}
	if a.syn != nil {
		o.Synonyms = lexical.DefaultSynonyms().Merge(a.syn)
	}
	return o
}

// check validates the switches.
func (a ablation) check() error {
	switch a.stem {
	case "", "none", "light", "snowball":
	default:
		return fmt.Errorf("-stem %q: want none|light|snowball", a.stem)
	}
	switch a.match {
	case "", "substring", "word-prefix":
	default:
		return fmt.Errorf("-match %q: want substring|word-prefix", a.match)
	}
	return nil
}

// describe adds the switches to the -json settings.
func (a ablation) describe(s map[string]any) {
	s["typo"], s["idf"], s["bm25"] = a.vocab && a.typo, a.vocab && a.idf, a.bm25
	if a.match != "" {
		s["match"] = a.match
	}
	if a.stem != "" {
		s["stem"] = a.stem
	}
	if a.maxTokens != 0 {
		s["max_tokens"] = a.maxTokens
	}
	if a.exact >= 0 {
		s["exact"] = a.exact
	}
	if a.proximity >= 0 {
		s["proximity"] = a.proximity
	}
	if a.fileWeight >= 0 {
		s["file_weight"] = a.fileWeight
	}
	if a.synonyms != "" {
		s["synonyms"] = a.synonyms
	}
	if a.idfOpts != (lexical.IDFOptions{}) {
		s["idf_options"] = a.idfOpts
	}
	if a.minDF > 0 {
		s["min_df"] = a.minDF
	}
}

// String describes the switches for the text output.
func (a ablation) String() string {
	s := fmt.Sprintf("typo=%t idf=%t", a.vocab && a.typo, a.vocab && a.idf)
	if a.stem != "" {
		s += " stem=" + a.stem
	}
	if a.match != "" {
		s += " match=" + a.match
	}
	if !a.bm25 {
		s += " bm25=false"
	}
	if a.maxTokens != 0 {
		s += fmt.Sprintf(" max-tokens=%d", a.maxTokens)
	}
	if a.proximity >= 0 {
		s += fmt.Sprintf(" proximity=%g", a.proximity)
	}
	if a.fileWeight >= 0 {
		s += fmt.Sprintf(" file-weight=%g", a.fileWeight)
	}
	if a.idfOpts != (lexical.IDFOptions{}) {
		s += fmt.Sprintf(" idf-ref=%g idf-floor=%g idf-cap=%g", a.idfOpts.Reference, a.idfOpts.Floor, a.idfOpts.Cap)
	}
	if a.minDF > 0 {
		s += fmt.Sprintf(" min-df=%d", a.minDF)
	}
	if a.synonyms != "" {
		s += " synonyms=" + a.synonyms
	}
	return s
}

// searcherOptions returns the Searcher options of the run: the ablation
// switches plus the retrieval flags (-aggregate, -weights, -cand-mult,
// -cand-max), which apply to every kind and to both candidate pools.
func (cfg *config) searcherOptions() rag.SearcherOptions {
	o := cfg.ablation.searcherOptions()
	if cfg.aggregate != "" {
		o.Vector.Aggregate, _ = vector.ParseAggregateMode(cfg.aggregate)
	}
	if cfg.weights != nil {
		o.Kinds.Catalog.Weights, o.Kinds.FAQs.Weights, o.Kinds.Documents.Weights = *cfg.weights, *cfg.weights, *cfg.weights
	}
	o.Lexical.CandidateMultiplier, o.Lexical.CandidateMax = cfg.candMult, cfg.candMax
	o.Vector.CandidateMultiplier, o.Vector.CandidateMax = cfg.candMult, cfg.candMax
	return o
}
