package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
)

// ablation holds the switches that turn the Searcher's tuned components
// off or reshape them, so that each one's effect can be measured alone.
type ablation struct {
	vocab, typo, idf bool
	idfOpts          lexical.IDFOptions
	minDF            int
	stem, prefix     bool
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
	fs.BoolVar(&a.stem, "stem", false, "stem query tokens (lexical.StemFilter) in the default scorers")
	fs.BoolVar(&a.prefix, "word-prefix", false, "match query terms at word starts only (lexical.MatchWordPrefix) in the default scorers")
	fs.StringVar(&a.synonyms, "synonyms", "", "domain synonym table `file` (JSON, lexical.ParseSynonyms format) merged over the default pt-BR table")
	fs.IntVar(&a.minDF, "min-df", 0, "least `records` a correction must appear in (default rag's 2)")
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
	o := rag.SearcherOptions{
		NoVocabulary: !a.vocab, NoTypoCorrection: !a.typo, NoIDF: !a.idf,
		IDF: a.idfOpts, CorrectionMinDF: a.minDF,
	}
	if a.stem || a.prefix || a.syn != nil {
		var tok lexical.Tokenizer
		if a.stem {
			tok.Filters = []lexical.TokenFilter{lexical.StemFilter{}}
		}
		match := lexical.MatchSubstring
		if a.prefix {
			match = lexical.MatchWordPrefix
		}
		var syn *lexical.Synonyms
		if a.syn != nil {
			syn = lexical.DefaultSynonyms().Merge(a.syn)
		}
		o.Scorer = lexical.NewScorer(lexical.ScorerOptions{Fields: rag.CatalogFields(rag.DefaultFileFieldWeight), Tokenizer: tok, Match: match, Synonyms: syn})
		o.FAQScorer = lexical.NewScorer(lexical.ScorerOptions{Fields: rag.FAQFields(), Tokenizer: tok, Match: match, Synonyms: syn})
		o.DocumentScorer = lexical.NewScorer(lexical.ScorerOptions{Fields: rag.DocumentFields(), Tokenizer: tok, Match: match, Synonyms: syn})
	}
	return o
}

// describe adds the switches to the -json settings.
func (a ablation) describe(s map[string]any) {
	s["typo"], s["idf"], s["stem"], s["word_prefix"] = a.vocab && a.typo, a.vocab && a.idf, a.stem, a.prefix
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
	if a.stem || a.prefix {
		s += fmt.Sprintf(" stem=%t word-prefix=%t", a.stem, a.prefix)
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
