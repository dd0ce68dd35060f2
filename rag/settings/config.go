package settings

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/assist"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag/llmchat"

	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/vector"
)

// Environment variable names read by ConfigFromEnv: the seeds' names (seed
// 000 §8, seed 001, DESIGN §11).
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
}

// SearchConfig are the Searcher's knobs (seed 000 §4, §8).
type SearchConfig struct {
	// Enhanced selects enhanced mode (lexicalScore and weighted fusion)
	// over simple mode (HYBRID_SEARCH_ENHANCED, default true: the library
	// default, unlike the seed where only "true" enables it).
	Enhanced bool `json:"enhanced"`
	// FAQHybrid runs FAQ searches with both legs; false makes them
	// lexical only (FAQ_HYBRID_ENABLED, default true).
	FAQHybrid bool `json:"faq_hybrid"`
	// CatalogVectorThreshold and FAQVectorThreshold keep chunks with a
	// distance (<#>) at most this value (CATALOG_/FAQ_VECTOR_THRESHOLD);
	// nil means -0.5 or the embedder's suggestion.
	CatalogVectorThreshold *float64 `json:"catalog_vector_threshold,omitempty"`
	FAQVectorThreshold     *float64 `json:"faq_vector_threshold,omitempty"`
	// CatalogVectorWeight, CatalogLexicalWeight and
	// CatalogPairPriorityBonus weigh the catalog's fused score (6, 4, 4);
	// 0 turns a component off.
	CatalogVectorWeight      float64 `json:"catalog_vector_weight"`
	CatalogLexicalWeight     float64 `json:"catalog_lexical_weight"`
	CatalogPairPriorityBonus float64 `json:"catalog_pair_priority_bonus"`
	// FAQVectorWeight and FAQLexicalWeight weigh the FAQs' fused score
	// (6, 4); 0 turns a component off.
	FAQVectorWeight  float64 `json:"faq_vector_weight"`
	FAQLexicalWeight float64 `json:"faq_lexical_weight"`
	// LexicalCandidateMultiplier and LexicalCandidateMax size the lexical
	// pool (CATALOG_LEXICAL_CANDIDATE_*, 6 and 200); VectorCandidate* the
	// vector pool (CATALOG_VECTOR_CANDIDATE_*, 6 and 200). They apply to
	// every kind of search.
	LexicalCandidateMultiplier int `json:"lexical_candidate_multiplier"`
	LexicalCandidateMax        int `json:"lexical_candidate_max"`
	VectorCandidateMultiplier  int `json:"vector_candidate_multiplier"`
	VectorCandidateMax         int `json:"vector_candidate_max"`
	// ChunksPerItem is how many chunks make a hit's snippet
	// (CATALOG_VECTOR_CHUNKS_PER_ITEM, 1); SnippetMaxChars caps it
	// (CATALOG_VECTOR_SNIPPET_MAX_CHARS, 800).
	ChunksPerItem   int `json:"chunks_per_item"`
	SnippetMaxChars int `json:"snippet_max_chars"`
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
	// AnswerModel answers (OPENROUTER_MODEL_ANSWER, else OPENAI_MODEL);
	// ClassifyModel classifies (OPENROUTER_MODEL_CLASSIFY, else
	// AnswerModel); ClassifyFallbackModel is tried when it fails
	// (OPENROUTER_MODEL_CLASSIFY_FALLBACK). "" is the adapter's default.
	AnswerModel           string `json:"answer_model,omitempty"`
	ClassifyModel         string `json:"classify_model,omitempty"`
	ClassifyFallbackModel string `json:"classify_fallback_model,omitempty"`
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
	// Model (EMBEDDING_MODEL, text-embedding-3-small), Dimensions
	// (EMBEDDING_DIMENSIONS, 1536) and BatchSize (EMBEDDING_BATCH_SIZE, 16).
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"`
	BatchSize  int    `json:"batch_size"`
}

// AssistConfig configures catalog assist (seed 000 §3.4).
type AssistConfig struct {
	// Model (CATALOG_AI_MODEL, else the answer model) and MaxPrice
	// (CATALOG_AI_MAX_PRICE; 0 means no bound).
	Model    string  `json:"model,omitempty"`
	MaxPrice float64 `json:"max_price"`
}

// DefaultConfig returns the seeds' defaults: enhanced hybrid search for
// catalog and FAQs, weights 6/4/4, pools 6×/200, one chunk per item and
// 800-character snippets, 6 turns of history, text-embedding-3-small at
// 1536 dimensions in batches of 16, pt-BR prompts, no provider.
func DefaultConfig() Config {
	return Config{
		Search: SearchConfig{
			Enhanced: true, FAQHybrid: true,
			CatalogVectorWeight: scoring.DefaultVectorWeight, CatalogLexicalWeight: scoring.DefaultLexicalWeight,
			CatalogPairPriorityBonus: scoring.DefaultPairWeight,
			FAQVectorWeight:          scoring.DefaultVectorWeight, FAQLexicalWeight: scoring.DefaultLexicalWeight,
			LexicalCandidateMultiplier: rag.DefaultCandidateMultiplier, LexicalCandidateMax: rag.DefaultCandidateMax,
			VectorCandidateMultiplier: rag.DefaultCandidateMultiplier, VectorCandidateMax: rag.DefaultCandidateMax,
			ChunksPerItem: vector.DefaultChunksPerOwner, SnippetMaxChars: vector.DefaultSnippetMaxChars,
		},
		Chat:      ChatConfig{HistoryLimit: rag.DefaultHistoryLimit, ContextTokens: rag.DefaultContextTokens, Language: rag.LanguagePortuguese},
		Embedding: EmbeddingConfig{Model: DefaultEmbeddingModel, Dimensions: DefaultEmbeddingDimensions, BatchSize: DefaultEmbeddingBatchSize},
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
	r.boolean(EnvHybridSearchEnhanced, &s.Enhanced)
	r.boolean(EnvFAQHybridEnabled, &s.FAQHybrid)
	r.floatPtr(EnvCatalogVectorThreshold, &s.CatalogVectorThreshold)
	r.floatPtr(EnvFAQVectorThreshold, &s.FAQVectorThreshold)
	r.float(EnvCatalogVectorWeight, &s.CatalogVectorWeight)
	r.float(EnvCatalogLexicalWeight, &s.CatalogLexicalWeight)
	r.float(EnvCatalogPairPriorityBonus, &s.CatalogPairPriorityBonus)
	r.float(EnvFAQVectorWeight, &s.FAQVectorWeight)
	r.float(EnvFAQLexicalWeight, &s.FAQLexicalWeight)
	r.integer(EnvCatalogLexicalCandidateMultiplier, &s.LexicalCandidateMultiplier)
	r.integer(EnvCatalogLexicalCandidateMax, &s.LexicalCandidateMax)
	r.integer(EnvCatalogVectorCandidateMultiplier, &s.VectorCandidateMultiplier)
	r.integer(EnvCatalogVectorCandidateMax, &s.VectorCandidateMax)
	r.integer(EnvCatalogVectorChunksPerItem, &s.ChunksPerItem)
	r.integer(EnvCatalogVectorSnippetMaxChars, &s.SnippetMaxChars)

	c := &cfg.Chat
	r.boolean(EnvCatalogQueryKeywordsEnabled, &c.UseCatalogQuery)
	r.integer(EnvChatHistoryContextLimit, &c.HistoryLimit)
	r.integer(EnvRAGMaxContextTokens, &c.ContextTokens)

	p := &cfg.Providers
	p.OpenRouterAPIKey = Secret(strings.TrimSpace(getenv(EnvOpenRouterAPIKey)))
	p.OpenAIAPIKey = Secret(strings.TrimSpace(getenv(EnvOpenAIAPIKey)))
	r.url(EnvOpenRouterSiteURL, &p.OpenRouterSiteURL)
	r.url(EnvOpenAIBaseURL, &p.OpenAIBaseURL)
	r.str(EnvOpenRouterSiteName, &p.OpenRouterSiteName)
	r.str(EnvOpenAIModel, &p.OpenAIModel)

	r.str(EnvOpenRouterModelAnswer, &c.AnswerModel)
	c.AnswerModel = cmp.Or(c.AnswerModel, p.OpenAIModel)
	r.str(EnvOpenRouterModelClassify, &c.ClassifyModel)
	c.ClassifyModel = cmp.Or(c.ClassifyModel, c.AnswerModel)
	r.str(EnvOpenRouterModelClassifyFallback, &c.ClassifyFallbackModel)

	e := &cfg.Embedding
	r.str(EnvEmbeddingModel, &e.Model)
	r.integer(EnvEmbeddingDimensions, &e.Dimensions)
	r.integer(EnvEmbeddingBatchSize, &e.BatchSize)

	a := &cfg.Assist
	r.str(EnvCatalogAIModel, &a.Model)
	a.Model = cmp.Or(a.Model, c.AnswerModel)
	r.float(EnvCatalogAIMaxPrice, &a.MaxPrice)

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
	if s.CatalogVectorThreshold != nil {
		finite(EnvCatalogVectorThreshold, *s.CatalogVectorThreshold)
	}
	if s.FAQVectorThreshold != nil {
		finite(EnvFAQVectorThreshold, *s.FAQVectorThreshold)
	}
	nonNegative(EnvCatalogVectorWeight, s.CatalogVectorWeight)
	nonNegative(EnvCatalogLexicalWeight, s.CatalogLexicalWeight)
	nonNegative(EnvCatalogPairPriorityBonus, s.CatalogPairPriorityBonus)
	nonNegative(EnvFAQVectorWeight, s.FAQVectorWeight)
	nonNegative(EnvFAQLexicalWeight, s.FAQLexicalWeight)
	const maxPool = 100_000
	inRange(EnvCatalogLexicalCandidateMultiplier, s.LexicalCandidateMultiplier, 1, maxPool)
	inRange(EnvCatalogLexicalCandidateMax, s.LexicalCandidateMax, 1, maxPool)
	inRange(EnvCatalogVectorCandidateMultiplier, s.VectorCandidateMultiplier, 1, maxPool)
	inRange(EnvCatalogVectorCandidateMax, s.VectorCandidateMax, 1, maxPool)
	inRange(EnvCatalogVectorChunksPerItem, s.ChunksPerItem, 1, 1000)
	inRange(EnvCatalogVectorSnippetMaxChars, s.SnippetMaxChars, 1, 1_000_000)
	inRange(EnvChatHistoryContextLimit, c.Chat.HistoryLimit, 1, 1000)
	inRange(EnvRAGMaxContextTokens, c.Chat.ContextTokens, 100, 8000)
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
			slog.Bool("enhanced", s.Enhanced), slog.Bool("faq_hybrid", s.FAQHybrid),
			slog.Any("catalog_vector_threshold", thr(s.CatalogVectorThreshold)), slog.Any("faq_vector_threshold", thr(s.FAQVectorThreshold)),
			slog.Float64("catalog_vector_weight", s.CatalogVectorWeight), slog.Float64("catalog_lexical_weight", s.CatalogLexicalWeight),
			slog.Float64("catalog_pair_priority_bonus", s.CatalogPairPriorityBonus),
			slog.Float64("faq_vector_weight", s.FAQVectorWeight), slog.Float64("faq_lexical_weight", s.FAQLexicalWeight),
			slog.Int("lexical_candidate_multiplier", s.LexicalCandidateMultiplier), slog.Int("lexical_candidate_max", s.LexicalCandidateMax),
			slog.Int("vector_candidate_multiplier", s.VectorCandidateMultiplier), slog.Int("vector_candidate_max", s.VectorCandidateMax),
			slog.Int("chunks_per_item", s.ChunksPerItem), slog.Int("snippet_max_chars", s.SnippetMaxChars)),
		slog.Group("chat",
			slog.Bool("use_catalog_query", c.Chat.UseCatalogQuery), slog.Int("history_limit", c.Chat.HistoryLimit),
			slog.Int("context_tokens", c.Chat.ContextTokens),
			slog.String("answer_model", c.Chat.AnswerModel), slog.String("classify_model", c.Chat.ClassifyModel),
			slog.String("classify_fallback_model", c.Chat.ClassifyFallbackModel), slog.String("language", string(c.Chat.Language))),
		slog.Group("providers",
			slog.Any("openrouter_api_key", c.Providers.OpenRouterAPIKey), slog.String("openrouter_site_url", c.Providers.OpenRouterSiteURL),
			slog.String("openrouter_site_name", c.Providers.OpenRouterSiteName),
			slog.Any("openai_api_key", c.Providers.OpenAIAPIKey), slog.String("openai_base_url", redactURL(c.Providers.OpenAIBaseURL)),
			slog.String("openai_model", c.Providers.OpenAIModel)),
		slog.Group("embedding",
			slog.String("model", c.Embedding.Model), slog.Int("dimensions", c.Embedding.Dimensions), slog.Int("batch_size", c.Embedding.BatchSize)),
		slog.Group("assist", slog.String("model", c.Assist.Model), slog.Float64("max_price", c.Assist.MaxPrice)),
	)
}

// redactURL hides the password of a URL.
func redactURL(v string) string {
	if u, err := url.Parse(v); err == nil {
		return u.Redacted()
	}
	return ""
}

// weight maps a Config weight to FusionWeights, where 0 means "default"
// and a negative value "off".
func weight(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

func copyFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// SearcherOptions maps the search knobs to SearcherOptions.
func (c Config) SearcherOptions() rag.SearcherOptions {
	s := c.Search
	o := rag.SearcherOptions{
		Mode:                      rag.ModeSimple,
		CatalogWeights:            rag.FusionWeights{Vector: weight(s.CatalogVectorWeight), Lexical: weight(s.CatalogLexicalWeight), Pair: weight(s.CatalogPairPriorityBonus)},
		FAQWeights:                rag.FusionWeights{Vector: weight(s.FAQVectorWeight), Lexical: weight(s.FAQLexicalWeight)},
		CatalogThreshold:          copyFloat(s.CatalogVectorThreshold),
		FAQThreshold:              copyFloat(s.FAQVectorThreshold),
		CandidateMultiplier:       s.LexicalCandidateMultiplier,
		CandidateMax:              s.LexicalCandidateMax,
		VectorCandidateMultiplier: s.VectorCandidateMultiplier,
		VectorCandidateMax:        s.VectorCandidateMax,
		ChunksPerOwner:            s.ChunksPerItem,
		SnippetMaxChars:           s.SnippetMaxChars,
	}
	if s.Enhanced {
		o.Mode = rag.ModeEnhanced
	}
	if !s.FAQHybrid {
		o.FAQLegs = rag.LegsLexical
	}
	return o
}

// PipelineOptions maps the chat knobs to PipelineOptions.
func (c Config) PipelineOptions() rag.PipelineOptions {
	return rag.PipelineOptions{HistoryLimit: c.Chat.HistoryLimit, UseCatalogQuery: c.Chat.UseCatalogQuery, ContextTokens: c.Chat.ContextTokens}
}

// IndexerOptions maps the embedding knobs to IndexerOptions.
func (c Config) IndexerOptions() ingest.IndexerOptions {
	return ingest.IndexerOptions{BatchSize: c.Embedding.BatchSize}
}

// ClassifierOptions maps the chat knobs to LLMClassifierOptions (model,
// fallback model name on the same provider, language).
func (c Config) ClassifierOptions() llmchat.LLMClassifierOptions {
	return llmchat.LLMClassifierOptions{Model: c.Chat.ClassifyModel, FallbackModel: c.Chat.ClassifyFallbackModel, Language: c.Chat.Language}
}

// AnswererOptions maps the chat knobs to LLMAnswererOptions.
func (c Config) AnswererOptions() llmchat.LLMAnswererOptions {
	return llmchat.LLMAnswererOptions{Model: c.Chat.AnswerModel, Language: c.Chat.Language}
}

// SummarizerOptions maps the chat knobs to LLMSummarizerOptions (the
// classification model summarizes).
func (c Config) SummarizerOptions() llmchat.LLMSummarizerOptions {
	return llmchat.LLMSummarizerOptions{Model: c.Chat.ClassifyModel, Language: c.Chat.Language}
}

// AgenticOptions maps the chat knobs to AgenticOptions.
func (c Config) AgenticOptions() rag.AgenticOptions {
	return rag.AgenticOptions{Model: c.Chat.AnswerModel, Language: c.Chat.Language}
}

// AssistOptions maps the assist knobs to AssistOptions with the known
// categories.
func (c Config) AssistOptions(categories []string) assist.AssistOptions {
	return assist.AssistOptions{Model: c.Assist.Model, MaxPrice: c.Assist.MaxPrice, Categories: categories, Language: c.Chat.Language}
}
