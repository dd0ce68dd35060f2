package rag

import (
	"log/slog"
	"time"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/tuning"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/vector"
)

// SearcherOptions configures a Searcher, one group per concern. The zero
// value gives the defaults, with weighted fusion;
// DefaultSearcherOptions shows them filled in. Like every option of the
// library, a zero field means its default and a negative value (Off for a
// Toggle) switches a feature off (see the package doc, "Options").
// NewSearcher copies the options (pointers included), so changing them
// afterwards does not change the Searcher.
type SearcherOptions struct {
	// Limits are the number of hits and the query text's caps.
	Limits LimitOptions
	// Kinds are the settings of each record kind.
	Kinds KindsOptions
	// Lexical shapes the lexical leg and the query analysis.
	Lexical LexicalOptions
	// Vector shapes the vector leg.
	Vector VectorOptions
	// Fusion is the default fusion method: weighted (the default: vector
	// similarity, lexical score, pair and rank bonuses combined by
	// merge.Weighted), rrf, relative, or simple, which keeps the
	// store's lexical order (terms matched, newest first), scores nothing
	// and lists vector hits first, then lexical ones. Simple ranks far
	// worse than weighted on every evaluation set (BENCHMARKS.md,
	// "Measurements behind defaults").
	Fusion merge.Method
	// Rerank is the optional reranking stage.
	Rerank RerankOptions
	// Evidence shapes the calibrated relevance every hit carries
	// (Hit.Evidence); the zero value gives the defaults.
	Evidence EvidenceOptions
	// Logger, when set, receives one record per search: "rag search" at
	// info level with the kind, the query (its first 200 characters), the
	// number of results, each leg's count, whether the embedding was used
	// and the fallback reason, the legs, fusion and limit, and the stage
	// timings (a "timings" group); "rag search failed" at warning level with the error (a
	// blank query, rejected at once, is not logged). nil logs nothing.
	Logger *slog.Logger
	// Tracer, when set, traces each search (package trace). When it also
	// implements trace.LegTracer each retrieval leg is traced, and when it
	// implements trace.EmbedTracer each query embedding. nil traces
	// nothing.
	Tracer trace.SearchTracer
}

// LimitOptions bound what a search returns and reads.
//
// The number of hits of a search is decided in one place, first set
// wins: Query.Limit (for a chat turn, ChatRequest.Limit, which the
// Pipeline passes as Query.Limit), then
// the kind's KindOptions.Limit, then Default; the result is clamped to
// [1, Max]. A value below 1 is unset at every level.
type LimitOptions struct {
	// Default is the number of hits of a search that sets no limit
	// (default 5).
	Default int
	// Max clamps every search's limit (default 50).
	Max int
	// MaxQueryChars truncates over-long query text (default 2000).
	MaxQueryChars int
	// MaxFAQQueryChars bounds query + context for FAQs (default 1200).
	MaxFAQQueryChars int
}

// KindsOptions are the settings of the record kinds.
type KindsOptions struct {
	// Catalog, FAQs and Documents are the settings of catalog items, FAQs
	// and documents.
	Catalog, FAQs, Documents KindOptions
}

// KindOptions are the settings of one record kind (catalog items, FAQs or
// documents) in SearcherOptions.Kinds.
type KindOptions struct {
	// Weights are the default fusion weights (zero fields: vector 6,
	// lexical 4, pair 4, rank bonuses 1; negative fields turn a component
	// off). When the catalog's are left entirely zero and the embedder
	// implements vector.FusionWeightSuggester, its suggestion is used for
	// catalog searches (the hash embedder suggests vector 3, lexical 6,
	// which ranks catalog searches better; on FAQs and documents it
	// measured slightly worse, so they keep the default weights;
	// BENCHMARKS.md, "Measurements behind defaults").
	Weights scoring.Weights
	// Threshold is the default vector threshold (pgvector <#> distance).
	// nil means -0.5 (similarity 0.5, the cut for OpenAI-style models,
	// whose related texts score above it), or the embedder's own
	// suggestion when it implements vector.ThresholdSuggester (the hash
	// embedder suggests -0.2). A pointer because 0 is a meaningful
	// threshold.
	//
	// Documents keep -0.5 too rather than a stricter -0.6: one scale
	// across kinds keeps the fused scores comparable, and text-embedding-3
	// models are known to give lower cosine similarities than earlier
	// OpenAI models, so a stricter cut risks dropping answers before the
	// evidence sees them. Neither value is measured here (no provider in
	// the tests or the evaluator; offline the hash embedder's -0.2
	// applies and this default is never used). 0.6 still decides
	// augmentation: it is the low confidence level
	// (scoring.DefaultLowThreshold) the Pipeline applies to the hits'
	// relevance. Set -0.6 for the stricter cut.
	Threshold *float64
	// Legs is the default Legs of searches that leave Query.Legs empty;
	// "" means hybrid. FAQs.Legs = LegsLexical makes FAQ searches lexical
	// only (no query embedding).
	Legs Legs
	// Scorer scores the kind's lexical candidates; nil means the kind's
	// default from package fields (fields.CatalogScorer, FAQScorer,
	// DocumentScorer; the FAQ and document ones with a few question
	// paraphrases added to lexical.DefaultSynonyms: "quanto tempo
	// demora", "demorar" for "prazo").
	Scorer *lexical.Scorer
	// Limit is the number of hits of the kind's searches that set no
	// limit; below 1 means LimitOptions.Default (see LimitOptions for the
	// precedence).
	Limit int
}

// LexicalOptions shape the lexical leg and the vocabulary-driven query
// analysis.
type LexicalOptions struct {
	// CandidateMultiplier and CandidateMax size the lexical candidate pool
	// (6, 200): min(limit × multiplier, max), never less than the limit.
	CandidateMultiplier, CandidateMax int
	// Vocabulary is the vocabulary-driven query analysis as a whole
	// (default On); Off gives plain analysis: no typo correction and no
	// IDF weights (what they are worth: BENCHMARKS.md, "Measurements
	// behind defaults").
	Vocabulary Toggle
	// TypoCorrection (default On) replaces a query word of 5+ letters that
	// no indexed word starts with, that is neither a stopword nor in the
	// synonym table, and that Lexicon does not know as a word of the
	// language, by the indexed word within one edit (two from 8 letters)
	// found in the most records ("fungisida" → "fungicida"; "sábado" is
	// left alone even in a store whose records say "sabão").
	TypoCorrection Toggle
	// Lexicon tells words of the language from typos for TypoCorrection,
	// and, for Hit.Evidence, names from words (a word no record holds and
	// neither Lexicon nor EvidenceOptions.Frequencies knows, "IRPF", is a
	// name the store lacks: a close vector does not make up for it): nil
	// means lexicon.Default(), Brazilian Portuguese and English. Use
	// lexicon.New(nil) to let the store's vocabulary alone decide (no word
	// is then taken for a name).
	Lexicon *lexicon.Lexicon
	// IDF (default On) multiplies each query term's field weights and
	// match bonus by its IDF relative to a term found in one record of ten
	// (lexical.Vocabulary.IDFWeights), unless the kind's Scorer has an IDF
	// hook of its own.
	IDF Toggle

	// idf shapes the IDF weights (zero value: lexical's defaults), and
	// correctionMinDF is the least number of records a word must appear
	// in to be a correction (default 1); only the project's evaluation
	// sets them (internal/tuning).
	idf             lexical.IDFOptions
	correctionMinDF int
}

func init() {
	tuning.SetLexical = func(opts any, t tuning.Lexical) {
		if o, ok := opts.(*SearcherOptions); ok {
			o.Lexical.idf, o.Lexical.correctionMinDF = t.IDF, t.CorrectionMinDF
		}
	}
}

// VectorOptions shape the vector leg.
type VectorOptions struct {
	// CandidateMultiplier and CandidateMax size the vector candidate pool;
	// 0 means LexicalOptions.CandidateMultiplier and CandidateMax.
	CandidateMultiplier, CandidateMax int
	// ChunksPerOwner (1) and SnippetMaxChars (800) shape snippets.
	ChunksPerOwner, SnippetMaxChars int
	// Aggregate is the chunk aggregation mode (default max).
	Aggregate vector.AggregateMode
	// EmbedTimeout bounds the query embedding (default 2 s). On timeout
	// the search returns lexical results with FallbackEmbeddingFailed.
	// The search returns at the timeout even when the embedder ignores its
	// context; the embedder call is then left to finish in the background
	// (its result is dropped) and counts as stalled until it returns.
	// While 16 such calls (or calls whose search was cancelled) have not
	// returned, searches do not call the embedder: they return lexical
	// results at once with FallbackEmbeddingFailed and a VectorError
	// wrapping context.DeadlineExceeded ("query embedder stalled"). So an
	// embedder that ignores its context and never returns holds at most
	// about 16 goroutines (plus one per search in progress), not one per
	// search.
	EmbedTimeout time.Duration
}

// RerankOptions configure the optional reranking stage.
type RerankOptions struct {
	// Reranker reorders the head of the fused hits of searches with
	// reranking on; nil reranks nothing.
	Reranker rerank.Reranker
	// Enabled is the default of searches whose Query.Rerank is unset
	// (default Off): there is nothing to rerank with until a Reranker is
	// given, and the offline one (rerank.Keyword) measured mixed on the
	// chat evaluation (BENCHMARKS.md, "Measurements behind defaults").
	Enabled Toggle
	// Window are the reranking window and cut (default 20 → 5, min 0.5;
	// see rerank.Options);
	// the final cut is never above the search's limit.
	Window rerank.Options
}

// Toggle switches an optional stage on or off. The zero value keeps the
// stage's documented default; it is the library's one on/off type, used
// wherever a switch has a default (the Searcher's stages, Query.Rerank,
// the Pipeline's fallback message and document search).
type Toggle int8

// Toggle values. Off is negative, like the value that switches off a
// numeric option (a weight, a cut, a cache size).
const (
	// On turns the stage on.
	On Toggle = 1
	// Off turns the stage off.
	Off Toggle = -1
)

// enabled reports whether the stage runs, given its default.
func (t Toggle) enabled(def bool) bool {
	if t == 0 {
		return def
	}
	return t > 0
}

// DefaultSearcherOptions returns the options a zero SearcherOptions
// stands for, with every default filled in (limits, candidate pools,
// timeouts, the query caps); NewSearcher applies the same defaults.
func DefaultSearcherOptions() SearcherOptions {
	return SearcherOptions{}.withDefaults()
}

// withDefaults fills the unset fields of o and copies its pointers.
func (o SearcherOptions) withDefaults() SearcherOptions {
	o.Evidence = o.Evidence.withDefaults()
	for _, k := range []*KindOptions{&o.Kinds.Catalog, &o.Kinds.FAQs, &o.Kinds.Documents} {
		if k.Threshold != nil {
			t := *k.Threshold
			k.Threshold = &t
		}
		k.Limit = max(k.Limit, 0)
	}
	l := &o.Limits
	if l.Default < 1 {
		l.Default = defaultLimit
	}
	if l.Max < 1 {
		l.Max = defaultMaxLimit
	}
	l.Default = min(l.Default, l.Max)
	if l.MaxQueryChars < 1 {
		l.MaxQueryChars = defaultMaxQueryChars
	}
	if l.MaxFAQQueryChars < 1 {
		l.MaxFAQQueryChars = defaultMaxFAQQueryChars
	}
	if o.Fusion == "" {
		o.Fusion = merge.MethodWeighted
	}
	lx := &o.Lexical
	if lx.CandidateMultiplier < 1 {
		lx.CandidateMultiplier = defaultCandidateMultiplier
	}
	if lx.CandidateMax < 1 {
		lx.CandidateMax = defaultCandidateMax
	}
	if lx.correctionMinDF < 1 {
		lx.correctionMinDF = defaultCorrectionMinDF
	}
	v := &o.Vector
	v.CandidateMultiplier = max(v.CandidateMultiplier, 0)
	v.CandidateMax = max(v.CandidateMax, 0)
	if v.ChunksPerOwner < 1 {
		v.ChunksPerOwner = chunkagg.DefaultChunksPerOwner
	}
	if v.SnippetMaxChars < 1 {
		v.SnippetMaxChars = chunkagg.DefaultSnippetMaxChars
	}
	if v.EmbedTimeout <= 0 {
		v.EmbedTimeout = defaultEmbedTimeout
	}
	return o
}
