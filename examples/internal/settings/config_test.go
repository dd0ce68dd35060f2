package settings_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
)

// envOf returns a getenv over m.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// envErrors unpacks the *EnvErrors of a joined error, by variable.
func envErrors(t *testing.T, err error) map[string]*settings.EnvError {
	t.Helper()
	out := map[string]*settings.EnvError{}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v is not joined", err)
	}
	for _, e := range joined.Unwrap() {
		var ee *settings.EnvError
		if !errors.As(e, &ee) {
			t.Fatalf("%v is not an *EnvError", e)
		}
		out[ee.Var] = ee
	}
	return out
}

func TestConfigFromEnvDefaults(t *testing.T) {
	for name, getenv := range map[string]func(string) string{
		"nil getenv":      nil,
		"no variables":    envOf(nil),
		"blank variables": func(string) string { return "  " },
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := settings.ConfigFromEnv(getenv)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(settings.DefaultConfig(), cfg); diff != "" {
				t.Errorf("(-default +got):\n%s", diff)
			}
			if err := cfg.Validate(); err != nil {
				t.Errorf("defaults do not validate: %v", err)
			}
			if _, ok := cfg.Providers.Chat(); ok {
				t.Error("a chat provider without keys")
			}
		})
	}
	// The default SearcherOptions give the same settings as the zero value.
	got := rag.NewSearcher(nil, nil, settings.DefaultConfig().SearcherOptions()).Options()
	want := rag.NewSearcher(nil, nil, rag.SearcherOptions{}).Options()
	got.Kinds.Catalog.Scorer, got.Kinds.FAQs.Scorer, got.Kinds.Documents.Scorer = nil, nil, nil
	want.Kinds.Catalog.Scorer, want.Kinds.FAQs.Scorer, want.Kinds.Documents.Scorer = nil, nil, nil
	// Explicit default weights and pools equal the zero value's defaults.
	want.Kinds.Catalog.Weights = scoring.Weights{Vector: 6, Lexical: 4, Pair: 4}
	want.Kinds.FAQs.Weights = scoring.Weights{Vector: 6, Lexical: 4}
	want.Vector.CandidateMultiplier, want.Vector.CandidateMax = 6, 200
	// The word-frequency table is compared by identity (both the default's).
	samePointer := cmp.Comparer(func(a, b *lexicon.Frequencies) bool { return a == b })
	// The knobs only the evaluation sets are unexported fields, compared too.
	unexported := cmp.AllowUnexported(rag.LexicalOptions{}, rag.EvidenceOptions{})
	if diff := cmp.Diff(want, got, samePointer, unexported); diff != "" {
		t.Errorf("default searcher options (-want +got):\n%s", diff)
	}
}

func TestConfigFromEnvAllVariables(t *testing.T) {
	env := map[string]string{
		settings.EnvHybridSearchEnhanced:              "false",
		settings.EnvFAQHybridEnabled:                  "off",
		settings.EnvCatalogVectorThreshold:            "-0.3",
		settings.EnvFAQVectorThreshold:                " -0.25 ",
		settings.EnvCatalogVectorWeight:               "5",
		settings.EnvCatalogLexicalWeight:              "0",
		settings.EnvFAQVectorWeight:                   "2.5",
		settings.EnvFAQLexicalWeight:                  "1",
		settings.EnvCatalogLexicalCandidateMultiplier: "4",
		settings.EnvCatalogLexicalCandidateMax:        "100",
		settings.EnvCatalogVectorCandidateMultiplier:  "8",
		settings.EnvCatalogVectorCandidateMax:         "300",
		settings.EnvCatalogVectorChunksPerItem:        "2",
		settings.EnvCatalogVectorSnippetMaxChars:      "500",
		settings.EnvCatalogPairPriorityBonus:          "7",
		settings.EnvCatalogQueryKeywordsEnabled:       "TRUE",
		settings.EnvOpenRouterAPIKey:                  "sk-or-v1-secretsecret",
		settings.EnvOpenRouterSiteURL:                 "https://loja.example.com",
		settings.EnvOpenRouterSiteName:                "Agro Loja",
		settings.EnvOpenAIAPIKey:                      "sk-proj-secretsecret",
		settings.EnvOpenAIBaseURL:                     "http://localhost:11434/v1",
		settings.EnvOpenAIModel:                       "gpt-4o-mini",
		settings.EnvOpenRouterModelClassify:           "openai/gpt-4o-mini",
		settings.EnvOpenRouterModelClassifyFallback:   "meta-llama/llama-3.1-8b-instruct",
		settings.EnvOpenRouterModelAnswer:             "anthropic/claude-3.5-haiku",
		settings.EnvOpenRouterModelAnswerFallback:     "openai/gpt-4o-mini",
		settings.EnvEmbeddingModel:                    "nomic-embed-text",
		settings.EnvEmbeddingDimensions:               "768",
		settings.EnvEmbeddingBatchSize:                "32",
		settings.EnvChatHistoryContextLimit:           "10",
		settings.EnvRAGMaxContextTokens:               "3000",
		settings.EnvCatalogAIModel:                    "openai/gpt-4o",
		settings.EnvCatalogAIMaxPrice:                 "25000",
	}
	cfg, err := settings.ConfigFromEnv(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	want := settings.Config{
		Search: settings.SearchConfig{
			Fusion:              merge.MethodSimple,
			Catalog:             settings.KindConfig{Threshold: ptr(-0.3), Weights: scoring.Weights{Vector: 5, Lexical: 0, Pair: 7}},
			FAQs:                settings.KindConfig{Legs: rag.LegsLexical, Threshold: ptr(-0.25), Weights: scoring.Weights{Vector: 2.5, Lexical: 1}},
			CandidateMultiplier: 4, CandidateMax: 100, VectorCandidateMultiplier: 8, VectorCandidateMax: 300,
			ChunksPerOwner: 2, SnippetMaxChars: 500,
		},
		Chat: settings.ChatConfig{
			UseCatalogQuery: true, HistoryLimit: 10, ContextTokens: 3000, AnswerModel: "anthropic/claude-3.5-haiku",
			ClassifyModel: "openai/gpt-4o-mini", ClassifyFallbackModel: "meta-llama/llama-3.1-8b-instruct", Language: rag.LanguagePortuguese,
			AnswerFallbackModel: "openai/gpt-4o-mini",
		},
		Providers: settings.ProviderConfig{
			OpenRouterAPIKey: "sk-or-v1-secretsecret", OpenRouterSiteURL: "https://loja.example.com", OpenRouterSiteName: "Agro Loja",
			OpenAIAPIKey: "sk-proj-secretsecret", OpenAIBaseURL: "http://localhost:11434/v1", OpenAIModel: "gpt-4o-mini",
		},
		Embedding: settings.EmbeddingConfig{Model: "nomic-embed-text", Dimensions: 768, BatchSize: 32},
		Assist:    settings.AssistConfig{Model: "openai/gpt-4o", MaxPrice: 25000},
		// Seed 004's and 002's knobs keep their defaults (TestSeedEnvNames).
		Cache:     settings.CacheConfig{Enabled: true, TTL: 24 * time.Hour, MaxEntries: 10000},
		Rerank:    settings.RerankConfig{Model: "openai/gpt-4o-mini"},
		Documents: settings.DocumentsConfig{Enabled: true},
	}
	want.Chat.ConfidenceThreshold = 0.70
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Fatalf("config (-want +got):\n%s", diff)
	}

	so := cfg.SearcherOptions()
	if so.Fusion != merge.MethodSimple || so.Kinds.FAQs.Legs != rag.LegsLexical || *so.Kinds.Catalog.Threshold != -0.3 || *so.Kinds.FAQs.Threshold != -0.25 {
		t.Errorf("searcher options fusion %q faq legs %q thresholds %v %v", so.Fusion, so.Kinds.FAQs.Legs, *so.Kinds.Catalog.Threshold, *so.Kinds.FAQs.Threshold)
	}
	if so.Kinds.Catalog.Weights != (scoring.Weights{Vector: 5, Lexical: -1, Pair: 7}) || so.Kinds.FAQs.Weights != (scoring.Weights{Vector: 2.5, Lexical: 1}) {
		t.Errorf("weights %+v %+v (a 0 weight must turn the component off)", so.Kinds.Catalog.Weights, so.Kinds.FAQs.Weights)
	}
	if so.Lexical.CandidateMultiplier != 4 || so.Lexical.CandidateMax != 100 || so.Vector.CandidateMultiplier != 8 || so.Vector.CandidateMax != 300 || so.Vector.ChunksPerOwner != 2 || so.Vector.SnippetMaxChars != 500 {
		t.Errorf("pools and snippets %+v", so)
	}
	if po := cfg.PipelineOptions(); po.HistoryLimit != 10 || !po.UseCatalogQuery {
		t.Errorf("pipeline options %+v", po)
	}
	if io := cfg.IndexerOptions(); io.BatchSize != 32 {
		t.Errorf("indexer options %+v", io)
	}
	if co := cfg.ClassifierOptions(); co.Model != "openai/gpt-4o-mini" || co.FallbackModel != "meta-llama/llama-3.1-8b-instruct" {
		t.Errorf("classifier options %+v", co)
	}
	if ao := cfg.AnswererOptions(); ao.Model != "anthropic/claude-3.5-haiku" || ao.FallbackModel != "openai/gpt-4o-mini" {
		t.Errorf("answerer options %+v", ao)
	}
	if ag := cfg.AgentOptions(); ag.Model != "anthropic/claude-3.5-haiku" || ag.FallbackModel != "openai/gpt-4o-mini" {
		t.Errorf("agentic options %+v", ag)
	}
	if as := cfg.AssistOptions([]string{"Fungicida"}); as.Model != "openai/gpt-4o" || as.MaxPrice != 25000 || len(as.Categories) != 1 {
		t.Errorf("assist options %+v", as)
	}
	chat, ok := cfg.Providers.Chat()
	if !ok || chat.Provider != "openrouter" || chat.BaseURL != settings.OpenRouterBaseURL || chat.APIKey.Value() != "sk-or-v1-secretsecret" ||
		chat.Headers["HTTP-Referer"] != "https://loja.example.com" || chat.Headers["X-Title"] != "Agro Loja" {
		t.Errorf("chat endpoint %+v", chat)
	}
	if emb, ok := cfg.Providers.Embeddings(); !ok || emb.Provider != "openai" || emb.BaseURL != "http://localhost:11434/v1" {
		t.Errorf("embedding endpoint %+v", emb)
	}
}

func TestConfigModelResolution(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		env                         map[string]string
		answer, classify, assist    string
		chatProvider, chatModelHint string
	}{
		{"OpenAI only", map[string]string{settings.EnvOpenAIAPIKey: "k", settings.EnvOpenAIModel: "gpt-4.1-mini"}, "gpt-4.1-mini", "gpt-4.1-mini", "gpt-4.1-mini", "openai", ""},
		{"OpenRouter answer model", map[string]string{settings.EnvOpenRouterAPIKey: "k", settings.EnvOpenRouterModelAnswer: "a"}, "a", "a", "a", "openrouter", ""},
		{"classify model only", map[string]string{settings.EnvOpenRouterModelClassify: "c"}, "", "c", "", "", ""},
		{"nothing", nil, "", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := settings.ConfigFromEnv(envOf(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Chat.AnswerModel != tc.answer || cfg.Chat.ClassifyModel != tc.classify || cfg.Assist.Model != tc.assist {
				t.Errorf("answer %q classify %q assist %q", cfg.Chat.AnswerModel, cfg.Chat.ClassifyModel, cfg.Assist.Model)
			}
			e, _ := cfg.Providers.Chat()
			if e.Provider != tc.chatProvider {
				t.Errorf("chat provider %q, want %q", e.Provider, tc.chatProvider)
			}
		})
	}
}

func TestConfigFromEnvInvalid(t *testing.T) {
	env := map[string]string{
		settings.EnvHybridSearchEnhanced:             "sim",
		settings.EnvCatalogVectorThreshold:           "NaN",
		settings.EnvFAQVectorThreshold:               "-0,5",
		settings.EnvCatalogVectorWeight:              "-1",
		settings.EnvCatalogLexicalCandidateMax:       "0",
		settings.EnvCatalogVectorCandidateMultiplier: "six",
		settings.EnvEmbeddingDimensions:              "99999",
		settings.EnvEmbeddingBatchSize:               "1.5",
		settings.EnvChatHistoryContextLimit:          "-2",
		settings.EnvRAGMaxContextTokens:              "50",
		settings.EnvCatalogAIMaxPrice:                "Inf",
		settings.EnvOpenAIBaseURL:                    "http://user:hunter2@%zz",
		settings.EnvOpenRouterSiteURL:                "https://user:hunter2@loja.example.com",
		settings.EnvOpenAIAPIKey:                     "sk-proj-topsecretvalue",
		// Valid ones are not reported.
		settings.EnvFAQHybridEnabled: "1",
	}
	cfg, err := settings.ConfigFromEnv(envOf(env))
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(err, settings.ErrInvalidConfig) {
		t.Errorf("%v does not match ErrInvalidConfig", err)
	}
	if diff := cmp.Diff(settings.Config{}, cfg); diff != "" {
		t.Errorf("config on error is not the zero value:\n%s", diff)
	}
	got := envErrors(t, err)
	var names []string
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{
		settings.EnvCatalogAIMaxPrice, settings.EnvCatalogLexicalCandidateMax, settings.EnvCatalogVectorCandidateMultiplier, settings.EnvCatalogVectorThreshold,
		settings.EnvCatalogVectorWeight, settings.EnvChatHistoryContextLimit, settings.EnvEmbeddingBatchSize, settings.EnvEmbeddingDimensions,
		settings.EnvFAQVectorThreshold, settings.EnvHybridSearchEnhanced, settings.EnvOpenAIBaseURL, settings.EnvOpenRouterSiteURL,
		settings.EnvRAGMaxContextTokens,
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("reported %v\nwant     %v", names, want)
	}
	if e := got[settings.EnvEmbeddingDimensions]; e == nil || e.Value != "99999" || !strings.Contains(e.Error(), "EMBEDDING_DIMENSIONS=\"99999\"") {
		t.Errorf("dimensions error %v", e)
	}
	if e := got[settings.EnvOpenRouterSiteURL]; e == nil || !strings.Contains(e.Error(), "credentials") {
		t.Errorf("site URL with credentials: %v", e)
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "topsecret") {
		t.Errorf("error leaks a secret: %s", msg)
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := settings.DefaultConfig()
	cfg.Search.ChunksPerOwner = 0
	cfg.Chat.Language = "fr"
	cfg.Embedding.Model = " "
	got := envErrors(t, cfg.Validate())
	for _, name := range []string{settings.EnvCatalogVectorChunksPerItem, "Chat.Language", settings.EnvEmbeddingModel} {
		if got[name] == nil {
			t.Errorf("%s not reported (got %v)", name, got)
		}
	}
}

func TestConfigMasksSecrets(t *testing.T) {
	cfg, err := settings.ConfigFromEnv(envOf(map[string]string{
		settings.EnvOpenRouterAPIKey: "sk-or-v1-abcdefsecret",
		settings.EnvOpenAIAPIKey:     "sk-proj-ghijklsecret",
		settings.EnvOpenAIBaseURL:    "https://proxy.example.com/v1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", cfg, "key", cfg.Providers.OpenAIAPIKey)
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, _ := cfg.Providers.Chat()
	outputs := map[string]string{
		"String": cfg.String(), "%v": fmt.Sprintf("%v", cfg), "%+v": fmt.Sprintf("%+v", cfg), "%#v": fmt.Sprintf("%#v", cfg),
		"%s": fmt.Sprintf("%s", cfg), "providers %+v": fmt.Sprintf("%+v", cfg.Providers), "providers %#v": fmt.Sprintf("%#v", cfg.Providers),
		"key %q": fmt.Sprintf("%q", cfg.Providers.OpenAIAPIKey), "key %x": fmt.Sprintf("%x", cfg.Providers.OpenAIAPIKey),
		"endpoint %+v": fmt.Sprintf("%+v", endpoint), "json": string(js), "slog": logs.String(),
	}
	for name, out := range outputs {
		if strings.Contains(out, "secret") || strings.Contains(out, "pa55word") {
			t.Errorf("%s leaks a secret: %s", name, out)
		}
	}
	if !strings.Contains(cfg.String(), "[REDACTED]") || !strings.Contains(logs.String(), "[REDACTED]") {
		t.Errorf("no redaction marker in %s", cfg.String())
	}
	if cfg.Providers.OpenAIAPIKey.Value() != "sk-proj-ghijklsecret" || settings.Secret("").String() != "" {
		t.Error("Value does not return the secret")
	}
}

// poolRecorder records the limits of the legs' store queries.
type poolRecorder struct {
	storage.Store
	mu        sync.Mutex
	lexItems  []int
	vecLimits []int
}

func (r *poolRecorder) Items() storage.RecordStore[storage.CatalogItem] {
	return recordingItems{r.Store.Items(), r}
}

// recordingItems records the limits of lexical item searches.
type recordingItems struct {
	storage.RecordStore[storage.CatalogItem]
	r *poolRecorder
}

func (ri recordingItems) Search(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[storage.CatalogItem], error) {
	ri.r.mu.Lock()
	ri.r.lexItems = append(ri.r.lexItems, q.Limit)
	ri.r.mu.Unlock()
	return ri.RecordStore.Search(ctx, q)
}

func (r *poolRecorder) SearchChunks(ctx context.Context, q storage.VectorQuery) ([]storage.ChunkMatch, error) {
	r.mu.Lock()
	r.vecLimits = append(r.vecLimits, q.Limit)
	r.mu.Unlock()
	return r.Store.SearchChunks(ctx, q)
}

func TestSearcherPoolsAndFAQLegsFromConfig(t *testing.T) {
	store, emb := fixture(t)
	ctx := context.Background()
	cfg, err := settings.ConfigFromEnv(envOf(map[string]string{
		settings.EnvFAQHybridEnabled:                  "false",
		settings.EnvCatalogLexicalCandidateMultiplier: "2",
		settings.EnvCatalogVectorCandidateMultiplier:  "10",
		settings.EnvCatalogVectorCandidateMax:         "30",
	}))
	if err != nil {
		t.Fatal(err)
	}
	rec := &poolRecorder{Store: store}
	s := rag.NewSearcher(rec, emb, cfg.SearcherOptions())

	res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida para uva", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !res.EmbeddingUsed || !slices.Equal(rec.lexItems, []int{10}) || !slices.Equal(rec.vecLimits, []int{30}) {
		t.Errorf("catalog: embedding %v, lexical limits %v (want 5×2), vector limits %v (want min(5×10, 30))", res.EmbeddingUsed, rec.lexItems, rec.vecLimits)
	}

	// FAQ_HYBRID_ENABLED=false: FAQ searches are lexical only, no embedding.
	calls := len(rec.vecLimits)
	faq, err := s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"})
	if err != nil {
		t.Fatal(err)
	}
	if faq.Legs != rag.LegsLexical || faq.EmbeddingUsed || faq.FallbackReason != rag.FallbackNone || len(faq.Hits) == 0 || len(rec.vecLimits) != calls {
		t.Errorf("FAQ search legs %q embedding %v fallback %q hits %d vector calls %d", faq.Legs, faq.EmbeddingUsed, faq.FallbackReason, len(faq.Hits), len(rec.vecLimits)-calls)
	}
	// An explicit Legs still wins.
	faq, err = s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega", Legs: rag.LegsHybrid})
	if err != nil || faq.Legs != rag.LegsHybrid || !faq.EmbeddingUsed {
		t.Errorf("explicit hybrid FAQ search: %v legs %q embedding %v", err, faq.Legs, faq.EmbeddingUsed)
	}
	// FAQ_HYBRID_ENABLED unset: hybrid.
	def := rag.NewSearcher(store, emb, settings.DefaultConfig().SearcherOptions())
	faq, err = def.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"})
	if err != nil || faq.Legs != rag.LegsHybrid || !faq.EmbeddingUsed {
		t.Errorf("default FAQ search: %v legs %q embedding %v", err, faq.Legs, faq.EmbeddingUsed)
	}
}
