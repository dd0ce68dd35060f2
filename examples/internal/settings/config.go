package settings

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/assist"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/vector"
	"github.com/hybridrag/hybridrag/vector/cache"
)

// Environment variable names read by ConfigFromEnv: those of the catalog
// chat system and the hybrid RAG design hybridrag replaces (seeds 000 and
// 001 of the README's "Seed numbers" table), so their deployments keep
// their environment.
const (
	EnvHybridSearchEnhanced              = "HYBRID_SEARCH_ENHANCED"
	EnvFAQHybridEnabled                  = "FAQ_HYBRID_ENABLED"
	EnvCatalogVectorThreshold            = "CATALOG_VECTOR_THRESHOLD"
	EnvFAQVectorThreshold                = "FAQ_VECTOR_THRESHOLD"
	EnvCatalogVectorWeight               = "CATALOG_VECTOR_WEIGHT"
	EnvCatalogLexicalWeight              = "CATALOG_LEXICAL_WEIGHT"
	EnvFAQVectorWeight                   = "FAQ_VECTOR_WEIGHT"
	EnvFAQLexicalWeight                  = "FAQ_LEXICAL_WEIGHT"
	EnvCatalogLexicalCandidateMultiplier = "CATALOG_LEXICAL_CANDIDATE_MULTIPLIER"
	EnvCatalogLexicalCandidateMax        = "CATALOG_LEXICAL_CANDIDATE_MAX"
	EnvCatalogVectorCandidateMultiplier  = "CATALOG_VECTOR_CANDIDATE_MULTIPLIER"
	EnvCatalogVectorCandidateMax         = "CATALOG_VECTOR_CANDIDATE_MAX"
	EnvCatalogVectorChunksPerItem        = "CATALOG_VECTOR_CHUNKS_PER_ITEM"
	EnvCatalogVectorSnippetMaxChars      = "CATALOG_VECTOR_SNIPPET_MAX_CHARS"
	EnvCatalogPairPriorityBonus          = "CATALOG_PAIR_PRIORITY_BONUS"
	EnvCatalogQueryKeywordsEnabled       = "CATALOG_QUERY_KEYWORDS_ENABLED"
	EnvOpenRouterAPIKey                  = "OPENROUTER_API_KEY"
	EnvOpenRouterSiteURL                 = "OPENROUTER_SITE_URL"
	EnvOpenRouterSiteName                = "OPENROUTER_SITE_NAME"
	EnvOpenAIAPIKey                      = "OPENAI_API_KEY"
	EnvOpenAIBaseURL                     = "OPENAI_BASE_URL"
	EnvOpenAIModel                       = "OPENAI_MODEL"
	EnvOpenRouterModelClassify           = "OPENROUTER_MODEL_CLASSIFY"
	EnvOpenRouterModelClassifyFallback   = "OPENROUTER_MODEL_CLASSIFY_FALLBACK"
	EnvOpenRouterModelAnswer             = "OPENROUTER_MODEL_ANSWER"
	EnvEmbeddingModel                    = "EMBEDDING_MODEL"
	EnvEmbeddingDimensions               = "EMBEDDING_DIMENSIONS"
	EnvEmbeddingBatchSize                = "EMBEDDING_BATCH_SIZE"
	EnvChatHistoryContextLimit           = "CHAT_HISTORY_CONTEXT_LIMIT"
	EnvRAGMaxContextTokens               = "RAG__MAX_CONTEXT_TOKENS"
	EnvCatalogAIModel                    = "CATALOG_AI_MODEL"
	EnvCatalogAIMaxPrice                 = "CATALOG_AI_MAX_PRICE"
)

// Environment variable names of seed 004 (the knowledge base: query
// embedding cache, reranking) and seed 002 (document RAG, prefix RAG__)
// read by ConfigFromEnv, each mapped onto a Config field as documented
// next to the field. Where a seed name and a name above set the same knob,
// the name above wins: EMBEDDING_MODEL over KB_EMBEDDING_MODEL over
// RAG__EMBEDDING_MODEL.
const (
	EnvKBEmbeddingModel       = "KB_EMBEDDING_MODEL"
	EnvKBCacheEnabled         = "KB_CACHE_ENABLED"
	EnvKBCacheTTLMS           = "KB_CACHE_TTL_MS"
	EnvKBCacheMaxSize         = "KB_CACHE_MAX_SIZE"
	EnvKBRerankerEnabled      = "KB_RERANKER_ENABLED"
	EnvKBRerankerModel        = "KB_RERANKER_MODEL"
	EnvCohereAPIKey           = "COHERE_API_KEY"
	EnvRAGEnabled             = "RAG__ENABLED"
	EnvRAGTopK                = "RAG__TOP_K"
	EnvRAGMinSimilarity       = "RAG__MIN_SIMILARITY"
	EnvRAGDocumentsPath       = "RAG__DOCUMENTS_PATH"
	EnvRAGEmbeddingModel      = "RAG__EMBEDDING_MODEL"
	EnvRAGConfidenceThreshold = "RAG__CONFIDENCE_THRESHOLD"
)

// EnvOpenRouterModelAnswerFallback names the answer model's fallback
// (ChatConfig.AnswerFallbackModel): a second model on the same provider
// answers when the first fails. The name follows
// OPENROUTER_MODEL_CLASSIFY_FALLBACK, the classifier's fallback.
const EnvOpenRouterModelAnswerFallback = "OPENROUTER_MODEL_ANSWER_FALLBACK"

// Defaults of Config that have no constant elsewhere.
const (
	// DefaultEmbeddingModel is the seeds' embedding model.
	DefaultEmbeddingModel = "text-embedding-3-small"
	// DefaultEmbeddingDimensions is the seeds' vector size.
	DefaultEmbeddingDimensions = 1536
	// DefaultEmbeddingBatchSize is the seeds' texts per embedding request.
	DefaultEmbeddingBatchSize = 16
	// OpenRouterBaseURL is the OpenAI-compatible endpoint of OpenRouter.
	OpenRouterBaseURL = "https://openrouter.ai/api/v1"
	// MaxEmbeddingDimensions bounds EMBEDDING_DIMENSIONS (pgvector's limit).
	MaxEmbeddingDimensions = 16000
	// MaxEmbeddingBatchSize bounds EMBEDDING_BATCH_SIZE (OpenAI's limit).
	MaxEmbeddingBatchSize = 2048
	// MaxCacheTTL bounds KB_CACHE_TTL_MS (ten years).
	MaxCacheTTL = 10 * 365 * 24 * time.Hour
	// MaxCacheEntries bounds KB_CACHE_MAX_SIZE.
	MaxCacheEntries = 10_000_000
	// MaxDocumentsTopK bounds RAG__TOP_K (seed 002: 1–20).
	MaxDocumentsTopK = 20
)

// ErrInvalidConfig is matched (errors.Is) by every *EnvError.
var ErrInvalidConfig = errors.New("rag: invalid configuration")

// EnvError is an invalid configuration value, named by its environment
// variable. It matches ErrInvalidConfig and the parse error with errors.Is.
// Value is the offending text (URLs with credentials redacted; secrets are
// never parsed, so never shown).
type EnvError struct {
	// Var is the environment variable, e.g. "CATALOG_VECTOR_WEIGHT".
	Var string
	// Value is the value that was rejected ("" for a programmatic value).
	Value string
	// Err says what is wrong.
	Err error
}

// Error implements error.
func (e *EnvError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("rag: config: %s: %v", e.Var, e.Err)
	}
	return fmt.Sprintf("rag: config: %s=%q: %v", e.Var, e.Value, e.Err)
}

// Unwrap returns ErrInvalidConfig and the underlying error.
func (e *EnvError) Unwrap() []error { return []error{ErrInvalidConfig, e.Err} }

// Secret is a credential. It prints, logs and marshals as "[REDACTED]" (or
// "" when empty); Value returns the real text.
type Secret string

const redacted = "[REDACTED]"

// Value returns the secret's text.
func (s Secret) Value() string { return string(s) }

// String implements fmt.Stringer with the secret masked.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString implements fmt.GoStringer with the secret masked.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format implements fmt.Formatter so that no verb prints the secret.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' || verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, strconv.Quote(s.String()))
		return
	}
	fmt.Fprint(f, s.String())
}

// MarshalText implements encoding.TextMarshaler with the secret masked, so
// JSON and other encodings never carry it.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue implements slog.LogValuer with the secret masked.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Config holds every knob of a hybridrag deployment that the seeds expose
// as environment variables. Build it with DefaultConfig or ConfigFromEnv
// (the library never reads the environment itself) and map it to the
// components' options with SearcherOptions, PipelineOptions,
// IndexerOptions and friends. Config is a plain value; String, LogValue and
// JSON encoding mask the API keys.
type Config struct {
	// Search are the Searcher's knobs.
	Search SearchConfig `json:"search"`
	// Chat are the pipeline's knobs and model names.
	Chat ChatConfig `json:"chat"`
	// Providers are the OpenAI-compatible endpoints and keys.
	Providers ProviderConfig `json:"providers"`
	// Embedding is the embedding model.
	Embedding EmbeddingConfig `json:"embedding"`
	// Assist configures catalog assist.
	Assist AssistConfig `json:"assist"`
	// Cache is the query-embedding cache (seed 004's KB_CACHE_*).
	Cache CacheConfig `json:"cache"`
	// Rerank is the reranker (seed 004's KB_RERANKER_* and
	// COHERE_API_KEY).
	Rerank RerankConfig `json:"rerank"`
	// Documents are the document-search knobs (seed 002's RAG__*).
	Documents DocumentsConfig `json:"documents"`
}

// SearchConfig are the Searcher's knobs, named as the
// rag.SearcherOptions fields they set.
type SearchConfig struct {
	// Fusion is weighted (enhanced mode: lexicalScore and the fused score)
	// or simple (the seeds' simple mode), from HYBRID_SEARCH_ENHANCED
	// (default true, weighted: the library default, unlike the seed where
	// only "true" enables it).
	Fusion merge.Method `json:"fusion"`
	// Catalog and FAQs are the per-kind knobs.
	Catalog KindConfig `json:"catalog"`
	FAQs    KindConfig `json:"faqs"`
	// CandidateMultiplier and CandidateMax size the lexical pool
	// (CATALOG_LEXICAL_CANDIDATE_*, 6 and 200); VectorCandidate* the
	// vector pool (CATALOG_VECTOR_CANDIDATE_*, 6 and 200). They apply to
	// every kind of search.
	CandidateMultiplier       int `json:"candidate_multiplier"`
	CandidateMax              int `json:"candidate_max"`
	VectorCandidateMultiplier int `json:"vector_candidate_multiplier"`
	VectorCandidateMax        int `json:"vector_candidate_max"`
	// ChunksPerOwner is how many chunks make a hit's snippet
	// (CATALOG_VECTOR_CHUNKS_PER_ITEM, 1); SnippetMaxChars caps it
	// (CATALOG_VECTOR_SNIPPET_MAX_CHARS, 800).
	ChunksPerOwner  int `json:"chunks_per_owner"`
	SnippetMaxChars int `json:"snippet_max_chars"`
}

// KindConfig are one record kind's knobs, named as the rag.KindOptions
// fields they set.
type KindConfig struct {
	// Legs is hybrid ("") or lexical; FAQ_HYBRID_ENABLED=false makes FAQ
	// searches lexical (catalog searches have no such variable).
	Legs rag.Legs `json:"legs,omitempty"`
	// Threshold keeps chunks with a distance (<#>) at most this value
	// (CATALOG_VECTOR_THRESHOLD, FAQ_VECTOR_THRESHOLD); nil means -0.5 or
	// the embedder's suggestion.
	Threshold *float64 `json:"threshold,omitempty"`
	// Weights weigh the fused score in the seeds' sense, where 0 turns a
	// component off: CATALOG_VECTOR_WEIGHT, CATALOG_LEXICAL_WEIGHT and
	// CATALOG_PAIR_PRIORITY_BONUS (6, 4, 4); FAQ_VECTOR_WEIGHT and
	// FAQ_LEXICAL_WEIGHT (6, 4; FAQs have no pair bonus). The rank bonuses
	// have no variable.
	Weights scoring.Weights `json:"weights"`
}

// ChatConfig are the chat pipeline's knobs and model names.
type ChatConfig struct {
	// UseCatalogQuery searches the catalog with the history summary's
	// keywords (CATALOG_QUERY_KEYWORDS_ENABLED, default false).
	UseCatalogQuery bool `json:"use_catalog_query"`
	// HistoryLimit is how many recent turns enter the context
	// (CHAT_HISTORY_CONTEXT_LIMIT, default 6).
	HistoryLimit int `json:"history_limit"`
	// ContextTokens is the budget of the retrieved context sections, in
	// tokens of about 4 characters (seed 002's RAG__MAX_CONTEXT_TOKENS,
	// default 2000, 100–8000).
	ContextTokens int `json:"context_tokens"`
	// ConfidenceThreshold is the mean relevance from which a turn's
	// confidence is medium (PipelineOptions.Confidence.Medium; seed 002's
	// RAG__CONFIDENCE_THRESHOLD, default 0.70, between the low and high
	// thresholds 0.60 and 0.85 so that the levels stay ordered). Seed 002
	// calls it the threshold of its ALTA level but gives it 0.70, the
	// MÉDIA threshold of its own calculator (ALTA is 0.85 there); it sets
	// the medium level here, so its default changes nothing.
	ConfidenceThreshold float64 `json:"confidence_threshold"`
	// AnswerModel answers (OPENROUTER_MODEL_ANSWER, else OPENAI_MODEL);
	// ClassifyModel classifies (OPENROUTER_MODEL_CLASSIFY, else
	// AnswerModel); ClassifyFallbackModel is tried when it fails
	// (OPENROUTER_MODEL_CLASSIFY_FALLBACK). "" is the adapter's default.
	AnswerModel           string `json:"answer_model,omitempty"`
	ClassifyModel         string `json:"classify_model,omitempty"`
	ClassifyFallbackModel string `json:"classify_fallback_model,omitempty"`
	// AnswerFallbackModel is the model name the answer (planned and
	// agentic) is asked of when AnswerModel fails with a retryable or
	// server error, on the same provider (OPENROUTER_MODEL_ANSWER_FALLBACK;
	// "" has no fallback). It maps to llmchat.AnswererOptions.FallbackModel
	// and rag.AgentOptions.FallbackModel, both llm.WithFallbackModel.
	AnswerFallbackModel string `json:"answer_fallback_model,omitempty"`
	// Language is the prompts' language (default pt-BR; no variable).
	Language rag.Language `json:"language"`
}

// ProviderConfig are the OpenAI-compatible providers. OpenRouter, when its
// key is set, serves chat; OpenAI (or any server at OpenAIBaseURL) serves
// chat otherwise, and embeddings.
type ProviderConfig struct {
	OpenRouterAPIKey   Secret `json:"openrouter_api_key,omitempty"`
	OpenRouterSiteURL  string `json:"openrouter_site_url,omitempty"`
	OpenRouterSiteName string `json:"openrouter_site_name,omitempty"`
	OpenAIAPIKey       Secret `json:"openai_api_key,omitempty"`
	OpenAIBaseURL      string `json:"openai_base_url,omitempty"`
	OpenAIModel        string `json:"openai_model,omitempty"`
	// CohereAPIKey (seed 004's COHERE_API_KEY) makes Config.Reranker use
	// Cohere's rerank API.
	CohereAPIKey Secret `json:"cohere_api_key,omitempty"`
}

// Endpoint is an OpenAI-compatible server to build a client for.
type Endpoint struct {
	// Provider is "openrouter" or "openai".
	Provider string
	// BaseURL is the API root; "" is the client's default (OpenAI).
	BaseURL string
	// APIKey authenticates.
	APIKey Secret
	// Headers are extra request headers (OpenRouter's HTTP-Referer and
	// X-Title attribution).
	Headers map[string]string
}

// Chat returns the endpoint serving chat models: OpenRouter when its key is
// set, else OpenAI when its key is set. ok is false when neither is (the
// offline components apply).
func (p ProviderConfig) Chat() (e Endpoint, ok bool) {
	if p.OpenRouterAPIKey != "" {
		e = Endpoint{Provider: "openrouter", BaseURL: OpenRouterBaseURL, APIKey: p.OpenRouterAPIKey, Headers: map[string]string{}}
		if p.OpenRouterSiteURL != "" {
			e.Headers["HTTP-Referer"] = p.OpenRouterSiteURL
		}
		if p.OpenRouterSiteName != "" {
			e.Headers["X-Title"] = p.OpenRouterSiteName
		}
		return e, true
	}
	return p.Embeddings()
}

// Embeddings returns the endpoint serving embeddings: OpenAI (or the server
// at OpenAIBaseURL) when its key is set. ok is false otherwise.
func (p ProviderConfig) Embeddings() (e Endpoint, ok bool) {
	if p.OpenAIAPIKey == "" {
		return Endpoint{}, false
	}
	return Endpoint{Provider: "openai", BaseURL: p.OpenAIBaseURL, APIKey: p.OpenAIAPIKey}, true
}

// EmbeddingConfig is the embedding model (seed 001).
type EmbeddingConfig struct {
	// Model (EMBEDDING_MODEL, else seed 004's KB_EMBEDDING_MODEL, else seed
	// 002's RAG__EMBEDDING_MODEL; text-embedding-3-small), Dimensions
	// (EMBEDDING_DIMENSIONS, 1536) and BatchSize (EMBEDDING_BATCH_SIZE, 16).
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"`
	BatchSize  int    `json:"batch_size"`
}

// AssistConfig configures catalog assist (package examples/internal/assist).
type AssistConfig struct {
	// Model (CATALOG_AI_MODEL, else the answer model) and MaxPrice
	// (CATALOG_AI_MAX_PRICE; 0 means no bound).
	Model    string  `json:"model,omitempty"`
	MaxPrice float64 `json:"max_price"`
}

// CacheConfig is seed 004's query-embedding cache, served by package
// vector/cache: Config.QueryEmbedder wraps the Searcher's embedder in it.
// Seed 004 keeps its cache in a PostgreSQL table (kb_embedding_cache),
// shared by processes and kept across restarts; vector/cache lives in the
// process's memory, is emptied by a restart, and reports hits, misses and
// entries (cache.Embedder.Stats) but not the seed's oldest and newest
// entry dates. Its Purge is the seed's clearCache; expired entries go when
// a lookup finds them or the least recently used one is evicted, with no
// separate cleanupCache.
type CacheConfig struct {
	// Enabled wraps the embedder in the cache (KB_CACHE_ENABLED, default
	// true).
	Enabled bool `json:"enabled"`
	// TTL is how long an entry is served (KB_CACHE_TTL_MS, in
	// milliseconds, default 24 h, at most MaxCacheTTL).
	TTL time.Duration `json:"ttl"`
	// MaxEntries bounds the cache, least recently used evicted first
	// (KB_CACHE_MAX_SIZE, default 10 000, at most MaxCacheEntries).
	MaxEntries int `json:"max_entries"`
}

// RerankConfig is seed 004's reranking: Config.Reranker builds the
// reranker, in the seed's order of providers, for RerankOptions.Reranker.
type RerankConfig struct {
	// Enabled reranks every search by default (SearcherOptions.Rerank,
	// from KB_RERANKER_ENABLED). Unset it is 0, the library's default:
	// off, unlike seed 004, where reranking is on unless disabled, because
	// the Searcher reranks only with a Reranker given to it.
	Enabled rag.Toggle `json:"enabled"`
	// Model is the chat model of the LLM reranker, used when no Cohere key
	// is set (KB_RERANKER_MODEL, else the classification model). Seed
	// 004's default, gpt-4o-mini, is not assumed: it is an OpenAI name,
	// which OpenRouter spells openai/gpt-4o-mini.
	Model string `json:"model,omitempty"`
}

// DocumentsConfig are seed 002's document-search knobs.
type DocumentsConfig struct {
	// Enabled is document search in the chat pipeline (RAG__ENABLED,
	// default true): false sets PipelineOptions.Documents to rag.Off and
	// leaves searchDocuments out of AgentOptions.Tools. Searches made
	// directly with Searcher.SearchDocuments are not affected.
	Enabled bool `json:"enabled"`
	// Limit is the number of hits of a document search
	// (SearcherOptions.Kinds.Documents.Limit; RAG__TOP_K, 1–20). 0 means the
	// Searcher's LimitOptions.Default, 5, which is also the seed's default.
	Limit int `json:"limit,omitempty"`
	// MinSimilarity keeps the document chunks whose cosine similarity to
	// the query is at least this (RAG__MIN_SIMILARITY, 0–1): it sets
	// SearcherOptions.Kinds.Documents.Threshold to its negative, the pgvector
	// <#> distance of unit vectors. nil keeps the Searcher's default
	// threshold (-0.5, or the embedder's suggestion), not the seed's 0.6;
	// rag.KindOptions.Threshold says why.
	MinSimilarity *float64 `json:"min_similarity,omitempty"`
	// Path is the documents directory (RAG__DOCUMENTS_PATH). The library
	// reads no files by itself: it is there for programs, e.g.
	// load.LoadDocuments(ctx, cfg.Documents.Path, nil). Unset it is "",
	// not the seed's data/documents.
	Path string `json:"path,omitempty"`
}

// DefaultConfig returns the seeds' defaults: enhanced hybrid search for
// catalog and FAQs, weights 6/4/4, pools 6×/200, one chunk per item and
// 800-character snippets, 6 turns of history, text-embedding-3-small at
// 1536 dimensions in batches of 16, pt-BR prompts, no provider; a query
// embedding cache of 10 000 entries for 24 h, reranking left to the
// Searcher's default (off), document search on with the Searcher's limit
// and threshold, and the medium confidence level at 0.70.
func DefaultConfig() Config {
	so := rag.DefaultSearcherOptions()
	return Config{
		Search: SearchConfig{
			Fusion:              merge.MethodWeighted,
			Catalog:             KindConfig{Weights: scoring.Weights{Vector: scoring.DefaultVectorWeight, Lexical: scoring.DefaultLexicalWeight, Pair: scoring.DefaultPairWeight}},
			FAQs:                KindConfig{Weights: scoring.Weights{Vector: scoring.DefaultVectorWeight, Lexical: scoring.DefaultLexicalWeight}},
			CandidateMultiplier: so.Lexical.CandidateMultiplier, CandidateMax: so.Lexical.CandidateMax,
			VectorCandidateMultiplier: so.Lexical.CandidateMultiplier, VectorCandidateMax: so.Lexical.CandidateMax,
			ChunksPerOwner: so.Vector.ChunksPerOwner, SnippetMaxChars: so.Vector.SnippetMaxChars,
		},
		Chat: ChatConfig{
			HistoryLimit: rag.DefaultPipelineOptions().HistoryLimit, ContextTokens: rag.DefaultPipelineOptions().ContextTokens,
			ConfidenceThreshold: scoring.DefaultMediumThreshold, Language: rag.LanguagePortuguese,
		},
		Embedding: EmbeddingConfig{Model: DefaultEmbeddingModel, Dimensions: DefaultEmbeddingDimensions, BatchSize: DefaultEmbeddingBatchSize},
		Cache:     CacheConfig{Enabled: true, TTL: cache.DefaultTTL, MaxEntries: cache.DefaultMaxEntries},
		Documents: DocumentsConfig{Enabled: true},
	}
}

// ConfigFromEnv builds a Config from DefaultConfig and the variables getenv
// returns (pass os.Getenv; a nil getenv reads nothing). Empty or blank
// variables keep the default. Booleans accept true/false, 1/0, yes/no,
// on/off; numbers are Go syntax. Model names resolve as documented on
// ChatConfig and AssistConfig.
//
// Every invalid value is reported, as an *EnvError naming its variable,
// joined with errors.Join, and the Config is then the zero value. The error
// never contains an API key or a URL's password.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := DefaultConfig()
	if getenv == nil {
		return cfg, nil
	}
	r := envReader{getenv: getenv}
	s := &cfg.Search
	enhanced, faqHybrid := true, true
	r.boolean(EnvHybridSearchEnhanced, &enhanced)
	if !enhanced {
		s.Fusion = merge.MethodSimple
	}
	r.boolean(EnvFAQHybridEnabled, &faqHybrid)
	if !faqHybrid {
		s.FAQs.Legs = rag.LegsLexical
	}
	r.floatPtr(EnvCatalogVectorThreshold, &s.Catalog.Threshold)
	r.floatPtr(EnvFAQVectorThreshold, &s.FAQs.Threshold)
	r.float(EnvCatalogVectorWeight, &s.Catalog.Weights.Vector)
	r.float(EnvCatalogLexicalWeight, &s.Catalog.Weights.Lexical)
	r.float(EnvCatalogPairPriorityBonus, &s.Catalog.Weights.Pair)
	r.float(EnvFAQVectorWeight, &s.FAQs.Weights.Vector)
	r.float(EnvFAQLexicalWeight, &s.FAQs.Weights.Lexical)
	r.integer(EnvCatalogLexicalCandidateMultiplier, &s.CandidateMultiplier)
	r.integer(EnvCatalogLexicalCandidateMax, &s.CandidateMax)
	r.integer(EnvCatalogVectorCandidateMultiplier, &s.VectorCandidateMultiplier)
	r.integer(EnvCatalogVectorCandidateMax, &s.VectorCandidateMax)
	r.integer(EnvCatalogVectorChunksPerItem, &s.ChunksPerOwner)
	r.integer(EnvCatalogVectorSnippetMaxChars, &s.SnippetMaxChars)

	c := &cfg.Chat
	r.boolean(EnvCatalogQueryKeywordsEnabled, &c.UseCatalogQuery)
	r.integer(EnvChatHistoryContextLimit, &c.HistoryLimit)
	r.integer(EnvRAGMaxContextTokens, &c.ContextTokens)
	r.float(EnvRAGConfidenceThreshold, &c.ConfidenceThreshold)

	p := &cfg.Providers
	p.OpenRouterAPIKey = Secret(strings.TrimSpace(getenv(EnvOpenRouterAPIKey)))
	p.OpenAIAPIKey = Secret(strings.TrimSpace(getenv(EnvOpenAIAPIKey)))
	p.CohereAPIKey = Secret(strings.TrimSpace(getenv(EnvCohereAPIKey)))
	r.url(EnvOpenRouterSiteURL, &p.OpenRouterSiteURL)
	r.url(EnvOpenAIBaseURL, &p.OpenAIBaseURL)
	r.str(EnvOpenRouterSiteName, &p.OpenRouterSiteName)
	r.str(EnvOpenAIModel, &p.OpenAIModel)

	r.str(EnvOpenRouterModelAnswer, &c.AnswerModel)
	c.AnswerModel = cmp.Or(c.AnswerModel, p.OpenAIModel)
	r.str(EnvOpenRouterModelClassify, &c.ClassifyModel)
	c.ClassifyModel = cmp.Or(c.ClassifyModel, c.AnswerModel)
	r.str(EnvOpenRouterModelClassifyFallback, &c.ClassifyFallbackModel)
	r.str(EnvOpenRouterModelAnswerFallback, &c.AnswerFallbackModel)

	e := &cfg.Embedding
	// Later reads win: EMBEDDING_MODEL, then KB_, then RAG__.
	r.str(EnvRAGEmbeddingModel, &e.Model)
	r.str(EnvKBEmbeddingModel, &e.Model)
	r.str(EnvEmbeddingModel, &e.Model)
	r.integer(EnvEmbeddingDimensions, &e.Dimensions)
	r.integer(EnvEmbeddingBatchSize, &e.BatchSize)

	a := &cfg.Assist
	r.str(EnvCatalogAIModel, &a.Model)
	a.Model = cmp.Or(a.Model, c.AnswerModel)
	r.float(EnvCatalogAIMaxPrice, &a.MaxPrice)

	cc := &cfg.Cache
	r.boolean(EnvKBCacheEnabled, &cc.Enabled)
	r.millis(EnvKBCacheTTLMS, &cc.TTL)
	r.integer(EnvKBCacheMaxSize, &cc.MaxEntries)

	rr := &cfg.Rerank
	r.toggle(EnvKBRerankerEnabled, &rr.Enabled)
	r.str(EnvKBRerankerModel, &rr.Model)
	rr.Model = cmp.Or(rr.Model, c.ClassifyModel)

	d := &cfg.Documents
	r.boolean(EnvRAGEnabled, &d.Enabled)
	r.topK(EnvRAGTopK, &d.Limit)
	r.floatPtr(EnvRAGMinSimilarity, &d.MinSimilarity)
	r.str(EnvRAGDocumentsPath, &d.Path)

	// Range checks, reported with the variable's value.
	for _, err := range cfg.check() {
		var ee *EnvError
		if errors.As(err, &ee) {
			if v, ok := r.value(ee.Var); ok && ee.Var != EnvOpenAIBaseURL && ee.Var != EnvOpenRouterSiteURL {
				ee.Value = v
			}
			r.errs = append(r.errs, ee)
		}
	}
	if len(r.errs) > 0 {
		return Config{}, errors.Join(r.errs...)
	}
	return cfg, nil
}

// Validate reports every out-of-range value as an *EnvError naming the
// variable that sets it, joined with errors.Join.
func (c Config) Validate() error {
	return errors.Join(c.check()...)
}

// check returns one *EnvError per invalid field.
func (c Config) check() []error {
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, &EnvError{Var: name, Err: fmt.Errorf(format, args...)})
	}
	finite := func(name string, v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad(name, "not a finite number")
			return false
		}
		return true
	}
	nonNegative := func(name string, v float64) {
		if finite(name, v) && v < 0 {
			bad(name, "negative (want >= 0; 0 turns the component off)")
		}
	}
	inRange := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			bad(name, "%d out of range [%d, %d]", v, lo, hi)
		}
	}
	s := c.Search
	switch s.Fusion {
	case merge.MethodWeighted, merge.MethodSimple, merge.MethodRRF, merge.MethodRelative:
	default:
		bad(EnvHybridSearchEnhanced, "fusion %q (want weighted, simple, rrf or relative)", s.Fusion)
	}
	if s.FAQs.Legs != "" && s.FAQs.Legs != rag.LegsHybrid && s.FAQs.Legs != rag.LegsLexical {
		bad(EnvFAQHybridEnabled, "legs %q (want hybrid or lexical)", s.FAQs.Legs)
	}
	if s.Catalog.Threshold != nil {
		finite(EnvCatalogVectorThreshold, *s.Catalog.Threshold)
	}
	if s.FAQs.Threshold != nil {
		finite(EnvFAQVectorThreshold, *s.FAQs.Threshold)
	}
	nonNegative(EnvCatalogVectorWeight, s.Catalog.Weights.Vector)
	nonNegative(EnvCatalogLexicalWeight, s.Catalog.Weights.Lexical)
	nonNegative(EnvCatalogPairPriorityBonus, s.Catalog.Weights.Pair)
	nonNegative(EnvFAQVectorWeight, s.FAQs.Weights.Vector)
	nonNegative(EnvFAQLexicalWeight, s.FAQs.Weights.Lexical)
	const maxPool = 100_000
	inRange(EnvCatalogLexicalCandidateMultiplier, s.CandidateMultiplier, 1, maxPool)
	inRange(EnvCatalogLexicalCandidateMax, s.CandidateMax, 1, maxPool)
	inRange(EnvCatalogVectorCandidateMultiplier, s.VectorCandidateMultiplier, 1, maxPool)
	inRange(EnvCatalogVectorCandidateMax, s.VectorCandidateMax, 1, maxPool)
	inRange(EnvCatalogVectorChunksPerItem, s.ChunksPerOwner, 1, 1000)
	inRange(EnvCatalogVectorSnippetMaxChars, s.SnippetMaxChars, 1, 1_000_000)
	inRange(EnvChatHistoryContextLimit, c.Chat.HistoryLimit, 1, 1000)
	inRange(EnvRAGMaxContextTokens, c.Chat.ContextTokens, 100, 8000)
	if finite(EnvRAGConfidenceThreshold, c.Chat.ConfidenceThreshold) &&
		(c.Chat.ConfidenceThreshold < scoring.DefaultLowThreshold || c.Chat.ConfidenceThreshold > scoring.DefaultHighThreshold) {
		bad(EnvRAGConfidenceThreshold, "%v out of range [%v, %v] (the low and high confidence thresholds)", c.Chat.ConfidenceThreshold, scoring.DefaultLowThreshold, scoring.DefaultHighThreshold)
	}
	if _, err := rag.ParseLanguage(string(c.Chat.Language)); err != nil {
		errs = append(errs, &EnvError{Var: "Chat.Language", Err: err})
	}
	inRange(EnvEmbeddingDimensions, c.Embedding.Dimensions, 1, MaxEmbeddingDimensions)
	inRange(EnvEmbeddingBatchSize, c.Embedding.BatchSize, 1, MaxEmbeddingBatchSize)
	if strings.TrimSpace(c.Embedding.Model) == "" {
		bad(EnvEmbeddingModel, "empty model name")
	}
	if finite(EnvCatalogAIMaxPrice, c.Assist.MaxPrice) && c.Assist.MaxPrice < 0 {
		bad(EnvCatalogAIMaxPrice, "negative (want >= 0; 0 means no bound)")
	}
	if c.Cache.TTL < time.Millisecond || c.Cache.TTL > MaxCacheTTL {
		bad(EnvKBCacheTTLMS, "%v out of range [1ms, %v]", c.Cache.TTL, MaxCacheTTL)
	}
	inRange(EnvKBCacheMaxSize, c.Cache.MaxEntries, 1, MaxCacheEntries)
	switch c.Rerank.Enabled {
	case 0, rag.On, rag.Off:
	default:
		bad(EnvKBRerankerEnabled, "toggle %d (want rag.On, rag.Off or 0)", c.Rerank.Enabled)
	}
	if c.Documents.Limit != 0 {
		inRange(EnvRAGTopK, c.Documents.Limit, 1, MaxDocumentsTopK)
	}
	if p := c.Documents.MinSimilarity; p != nil && finite(EnvRAGMinSimilarity, *p) && (*p < 0 || *p > 1) {
		bad(EnvRAGMinSimilarity, "%v out of range [0, 1] (a cosine similarity)", *p)
	}
	for _, u := range []struct{ name, v string }{
		{EnvOpenAIBaseURL, c.Providers.OpenAIBaseURL}, {EnvOpenRouterSiteURL, c.Providers.OpenRouterSiteURL},
	} {
		if u.v != "" {
			if err := checkURL(u.v); err != nil {
				errs = append(errs, &EnvError{Var: u.name, Err: err})
			}
		}
	}
	return errs
}

// checkURL accepts absolute http(s) URLs without user information, so that
// a Config holds no credential outside its Secret fields. The error never
// repeats the URL.
func checkURL(v string) error {
	u, err := url.Parse(v)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return errors.New("want an absolute http or https URL")
	}
	if u.User != nil {
		return errors.New("must not carry credentials (put the key in the API key variable)")
	}
	return nil
}

// envReader parses variables, collecting one *EnvError per bad one.
type envReader struct {
	getenv func(string) string
	errs   []error
}

func (r *envReader) value(name string) (string, bool) {
	v := strings.TrimSpace(r.getenv(name))
	return v, v != ""
}

func (r *envReader) fail(name, value string, err error) {
	if len(value) > 64 {
		value = textutil.TruncateRunes(value, 64) + "…"
	}
	r.errs = append(r.errs, &EnvError{Var: name, Value: value, Err: err})
}

func (r *envReader) str(name string, dst *string) {
	if v, ok := r.value(name); ok {
		*dst = v
	}
}

func (r *envReader) url(name string, dst *string) {
	v, ok := r.value(name)
	if !ok {
		return
	}
	if err := checkURL(v); err != nil {
		shown := ""
		if u, perr := url.Parse(v); perr == nil {
			shown = u.Redacted()
		}
		r.fail(name, shown, err)
		return
	}
	*dst = v
}

func (r *envReader) boolean(name string, dst *bool) {
	v, ok := r.value(name)
	if !ok {
		return
	}
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes", "y", "on":
		*dst = true
	case "0", "f", "false", "no", "n", "off":
		*dst = false
	default:
		r.fail(name, v, errors.New("not a boolean (want true or false)"))
	}
}

func (r *envReader) float(name string, dst *float64) {
	v, ok := r.value(name)
	if !ok {
		return
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		r.fail(name, v, errors.New("not a number"))
		return
	}
	*dst = f
}

func (r *envReader) floatPtr(name string, dst **float64) {
	if _, ok := r.value(name); !ok {
		return
	}
	var f float64
	before := len(r.errs)
	r.float(name, &f)
	if len(r.errs) == before {
		*dst = &f
	}
}

// toggle reads a boolean as rag.On or rag.Off; unset leaves dst alone.
func (r *envReader) toggle(name string, dst *rag.Toggle) {
	if _, ok := r.value(name); !ok {
		return
	}
	var on bool
	before := len(r.errs)
	r.boolean(name, &on)
	if len(r.errs) > before {
		return
	}
	*dst = rag.Off
	if on {
		*dst = rag.On
	}
}

// millis reads a whole number of milliseconds in [1, MaxCacheTTL].
func (r *envReader) millis(name string, dst *time.Duration) {
	v, ok := r.value(name)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.fail(name, v, errors.New("not a whole number of milliseconds"))
		return
	}
	if maxMS := int64(MaxCacheTTL / time.Millisecond); n < 1 || n > maxMS {
		r.fail(name, v, fmt.Errorf("%d ms out of range [1, %d]", n, maxMS))
		return
	}
	*dst = time.Duration(n) * time.Millisecond
}

// topK reads RAG__TOP_K, where 0 is out of range, unlike the field's 0.
func (r *envReader) topK(name string, dst *int) {
	if _, ok := r.value(name); !ok {
		return
	}
	n := -1
	before := len(r.errs)
	r.integer(name, &n)
	if len(r.errs) > before {
		return
	}
	if n < 1 || n > MaxDocumentsTopK {
		v, _ := r.value(name)
		r.fail(name, v, fmt.Errorf("%d out of range [1, %d]", n, MaxDocumentsTopK))
		return
	}
	*dst = n
}

func (r *envReader) integer(name string, dst *int) {
	v, ok := r.value(name)
	if !ok {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.fail(name, v, errors.New("not an integer"))
		return
	}
	*dst = n
}

// String returns the configuration with the API keys masked.
func (c Config) String() string {
	return c.LogValue().String()
}

// LogValue implements slog.LogValuer with the API keys masked.
func (c Config) LogValue() slog.Value {
	s := c.Search
	thr := func(p *float64) slog.Value {
		if p == nil {
			return slog.StringValue("default")
		}
		return slog.Float64Value(*p)
	}
	return slog.GroupValue(
		slog.Group("search",
			slog.String("fusion", string(s.Fusion)), slog.String("faq_legs", string(cmp.Or(s.FAQs.Legs, rag.LegsHybrid))),
			slog.Any("catalog_threshold", thr(s.Catalog.Threshold)), slog.Any("faq_threshold", thr(s.FAQs.Threshold)),
			slog.Float64("catalog_vector_weight", s.Catalog.Weights.Vector), slog.Float64("catalog_lexical_weight", s.Catalog.Weights.Lexical),
			slog.Float64("catalog_pair_weight", s.Catalog.Weights.Pair),
			slog.Float64("faq_vector_weight", s.FAQs.Weights.Vector), slog.Float64("faq_lexical_weight", s.FAQs.Weights.Lexical),
			slog.Int("candidate_multiplier", s.CandidateMultiplier), slog.Int("candidate_max", s.CandidateMax),
			slog.Int("vector_candidate_multiplier", s.VectorCandidateMultiplier), slog.Int("vector_candidate_max", s.VectorCandidateMax),
			slog.Int("chunks_per_owner", s.ChunksPerOwner), slog.Int("snippet_max_chars", s.SnippetMaxChars)),
		slog.Group("chat",
			slog.Bool("use_catalog_query", c.Chat.UseCatalogQuery), slog.Int("history_limit", c.Chat.HistoryLimit),
			slog.Int("context_tokens", c.Chat.ContextTokens), slog.Float64("confidence_threshold", c.Chat.ConfidenceThreshold),
			slog.String("answer_model", c.Chat.AnswerModel), slog.String("classify_model", c.Chat.ClassifyModel),
			slog.String("classify_fallback_model", c.Chat.ClassifyFallbackModel),
			slog.String("answer_fallback_model", c.Chat.AnswerFallbackModel), slog.String("language", string(c.Chat.Language))),
		slog.Group("providers",
			slog.Any("openrouter_api_key", c.Providers.OpenRouterAPIKey), slog.String("openrouter_site_url", c.Providers.OpenRouterSiteURL),
			slog.String("openrouter_site_name", c.Providers.OpenRouterSiteName),
			slog.Any("openai_api_key", c.Providers.OpenAIAPIKey), slog.String("openai_base_url", redactURL(c.Providers.OpenAIBaseURL)),
			slog.String("openai_model", c.Providers.OpenAIModel)),
		slog.Group("embedding",
			slog.String("model", c.Embedding.Model), slog.Int("dimensions", c.Embedding.Dimensions), slog.Int("batch_size", c.Embedding.BatchSize)),
		slog.Group("assist", slog.String("model", c.Assist.Model), slog.Float64("max_price", c.Assist.MaxPrice)),
		slog.Group("cache", slog.Bool("enabled", c.Cache.Enabled), slog.Duration("ttl", c.Cache.TTL), slog.Int("max_entries", c.Cache.MaxEntries)),
		slog.Group("rerank",
			slog.String("enabled", toggleName(c.Rerank.Enabled)), slog.String("model", c.Rerank.Model),
			slog.Any("cohere_api_key", c.Providers.CohereAPIKey)),
		slog.Group("documents",
			slog.Bool("enabled", c.Documents.Enabled), slog.Int("limit", c.Documents.Limit),
			slog.Any("min_similarity", thr(c.Documents.MinSimilarity)), slog.String("path", c.Documents.Path)),
	)
}

// toggleName names a rag.Toggle for logs.
func toggleName(t rag.Toggle) string {
	switch t {
	case rag.On:
		return "on"
	case rag.Off:
		return "off"
	}
	return "default"
}

// redactURL hides the password of a URL.
func redactURL(v string) string {
	if u, err := url.Parse(v); err == nil {
		return u.Redacted()
	}
	return ""
}

// weights maps seed weights, where 0 turns a component off, to
// scoring.Weights, where 0 means the default and a negative value off; the
// rank bonuses, which have no variable, keep their defaults.
func weights(w scoring.Weights, pair bool) scoring.Weights {
	off := func(v float64) float64 {
		if v == 0 {
			return -1
		}
		return v
	}
	out := scoring.Weights{Vector: off(w.Vector), Lexical: off(w.Lexical)}
	if pair {
		out.Pair = off(w.Pair)
	}
	return out
}

func copyFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// SearcherOptions maps the search knobs to rag.SearcherOptions, seed 002's
// document limit and similarity and seed 004's reranking default included
// (set the Reranker from Config.Reranker).
func (c Config) SearcherOptions() rag.SearcherOptions {
	s := c.Search
	var docThreshold *float64
	if c.Documents.MinSimilarity != nil {
		t := -*c.Documents.MinSimilarity
		docThreshold = &t
	}
	return rag.SearcherOptions{
		Fusion: s.Fusion,
		Kinds: rag.KindsOptions{
			Catalog:   rag.KindOptions{Weights: weights(s.Catalog.Weights, true), Threshold: copyFloat(s.Catalog.Threshold), Legs: s.Catalog.Legs},
			FAQs:      rag.KindOptions{Weights: weights(s.FAQs.Weights, false), Threshold: copyFloat(s.FAQs.Threshold), Legs: s.FAQs.Legs},
			Documents: rag.KindOptions{Threshold: docThreshold, Limit: c.Documents.Limit},
		},
		Rerank:  rag.RerankOptions{Enabled: c.Rerank.Enabled},
		Lexical: rag.LexicalOptions{CandidateMultiplier: s.CandidateMultiplier, CandidateMax: s.CandidateMax},
		Vector: rag.VectorOptions{
			CandidateMultiplier: s.VectorCandidateMultiplier, CandidateMax: s.VectorCandidateMax,
			ChunksPerOwner: s.ChunksPerOwner, SnippetMaxChars: s.SnippetMaxChars,
		},
	}
}

// PipelineOptions maps the chat knobs to PipelineOptions: history, context
// budget, the medium confidence threshold and, from Documents.Enabled,
// document search.
func (c Config) PipelineOptions() rag.PipelineOptions {
	po := rag.PipelineOptions{
		HistoryLimit: c.Chat.HistoryLimit, UseCatalogQuery: c.Chat.UseCatalogQuery, ContextTokens: c.Chat.ContextTokens,
		Confidence: scoring.Thresholds{Medium: c.Chat.ConfidenceThreshold}, Language: c.Chat.Language,
	}
	if !c.Documents.Enabled {
		po.Documents = rag.Off
	}
	return po
}

// IndexerOptions maps the embedding knobs to IndexerOptions.
func (c Config) IndexerOptions() ingest.IndexerOptions {
	return ingest.IndexerOptions{BatchSize: c.Embedding.BatchSize}
}

// ClassifierOptions maps the chat knobs to llmchat.ClassifierOptions (model,
// fallback model name on the same provider, language).
func (c Config) ClassifierOptions() llmchat.ClassifierOptions {
	return llmchat.ClassifierOptions{Model: c.Chat.ClassifyModel, FallbackModel: c.Chat.ClassifyFallbackModel, Language: c.Chat.Language}
}

// AnswererOptions maps the chat knobs to llmchat.AnswererOptions (model,
// fallback model name on the same provider, language).
func (c Config) AnswererOptions() llmchat.AnswererOptions {
	return llmchat.AnswererOptions{Model: c.Chat.AnswerModel, FallbackModel: c.Chat.AnswerFallbackModel, Language: c.Chat.Language}
}

// SummarizerOptions maps the chat knobs to llmchat.SummarizerOptions (the
// classification model summarizes).
func (c Config) SummarizerOptions() llmchat.SummarizerOptions {
	return llmchat.SummarizerOptions{Model: c.Chat.ClassifyModel, Language: c.Chat.Language}
}

// AgentOptions maps the chat knobs to AgentOptions (the answer model
// and its fallback; the language is PipelineOptions'); with Documents.Enabled false the document
// search tool is not offered.
func (c Config) AgentOptions() rag.AgentOptions {
	ao := rag.AgentOptions{Model: c.Chat.AnswerModel, FallbackModel: c.Chat.AnswerFallbackModel}
	if !c.Documents.Enabled {
		ao.Tools = []string{rag.ToolSearchCatalog, rag.ToolSearchFAQs}
	}
	return ao
}

// CacheOptions maps the cache knobs to cache.Options (TTL and size);
// whether to cache at all is Cache.Enabled, which QueryEmbedder applies.
func (c Config) CacheOptions() cache.Options {
	return cache.Options{TTL: c.Cache.TTL, MaxEntries: c.Cache.MaxEntries}
}

// QueryEmbedder returns e wrapped in a query-embedding cache
// (cache.New with CacheOptions) when Cache.Enabled, else e itself. Give the
// result to the Searcher; the Indexer embeds each text once and gains
// nothing from it. It does no I/O. A nil e is returned as is.
func (c Config) QueryEmbedder(e vector.Embedder) vector.Embedder {
	if e == nil || !c.Cache.Enabled {
		return e
	}
	return cache.New(e, c.CacheOptions())
}

// Reranker returns the reranker of seed 004, choosing the provider in the
// seed's order: Cohere's rerank API when COHERE_API_KEY is set
// (rerank.HTTP over client; nil means http.DefaultClient), else the LLM
// reranker on chat with Rerank.Model when chat is not nil, else the
// offline keyword reranker (the seed's fallback: 60% original score, 25%
// content overlap, 15% title overlap). It does no I/O. Set the result as
// RerankOptions.Reranker; Rerank.Enabled says whether searches use it
// by default, and a query's Rerank overrides that.
func (c Config) Reranker(client *http.Client, chat llm.ChatModel) (rerank.Reranker, error) {
	if key := c.Providers.CohereAPIKey; key != "" {
		return rerank.NewHTTP(client, rerank.HTTPOptions{APIKey: key.Value(), Flavor: rerank.FlavorCohere})
	}
	if chat != nil {
		return rerank.NewLLM(chat, rerank.LLMOptions{Model: c.Rerank.Model, Language: string(c.Chat.Language)})
	}
	return rerank.NewKeyword(rerank.KeywordOptions{})
}

// AssistOptions maps the assist knobs to assist.Options with the known
// categories.
func (c Config) AssistOptions(categories []string) assist.Options {
	return assist.Options{Model: c.Assist.Model, MaxPrice: c.Assist.MaxPrice, Categories: categories, Language: c.Chat.Language}
}
