package settings_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/vector"
	"github.com/hybridrag/hybridrag/vector/cache"
)

// TestSeedEnvNames: each of seed 004's and seed 002's names sets its knob
// and reaches the options it maps to.
func TestSeedEnvNames(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, cfg settings.Config)
	}{
		{"KB_CACHE_ENABLED=false", map[string]string{settings.EnvKBCacheEnabled: "false"}, func(t *testing.T, cfg settings.Config) {
			emb := hashEmbedder(t)
			if cfg.Cache.Enabled || cfg.QueryEmbedder(emb) != emb {
				t.Errorf("cache %+v: the embedder is wrapped", cfg.Cache)
			}
		}},
		{"cache on by default", nil, func(t *testing.T, cfg settings.Config) {
			if _, ok := cfg.QueryEmbedder(hashEmbedder(t)).(*cache.Embedder); !ok || !cfg.Cache.Enabled {
				t.Errorf("cache %+v: the embedder is not wrapped", cfg.Cache)
			}
			if cfg.QueryEmbedder(nil) != nil {
				t.Error("a nil embedder is wrapped")
			}
		}},
		{"KB_CACHE_TTL_MS and KB_CACHE_MAX_SIZE", map[string]string{settings.EnvKBCacheTTLMS: "90000", settings.EnvKBCacheMaxSize: "500"}, func(t *testing.T, cfg settings.Config) {
			if o := cfg.CacheOptions(); o.TTL != 90*time.Second || o.MaxEntries != 500 {
				t.Errorf("cache options %+v, want 1m30s and 500", o)
			}
		}},
		{"KB_RERANKER_ENABLED=true", map[string]string{settings.EnvKBRerankerEnabled: "true"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Rerank.Enabled != rag.On || cfg.SearcherOptions().Rerank.Enabled != rag.On {
				t.Errorf("rerank %v, searcher %v; want on", cfg.Rerank.Enabled, cfg.SearcherOptions().Rerank)
			}
		}},
		{"KB_RERANKER_ENABLED=false", map[string]string{settings.EnvKBRerankerEnabled: "0"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Rerank.Enabled != rag.Off || cfg.SearcherOptions().Rerank.Enabled != rag.Off {
				t.Errorf("rerank %v, searcher %v; want off", cfg.Rerank.Enabled, cfg.SearcherOptions().Rerank)
			}
		}},
		{"reranking left to the Searcher by default", nil, func(t *testing.T, cfg settings.Config) {
			if cfg.Rerank.Enabled != 0 || cfg.SearcherOptions().Rerank.Enabled != 0 {
				t.Errorf("rerank %v, want the library default", cfg.Rerank.Enabled)
			}
		}},
		{"KB_RERANKER_MODEL", map[string]string{settings.EnvKBRerankerModel: "openai/gpt-4o-mini", settings.EnvOpenRouterModelClassify: "c"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Rerank.Model != "openai/gpt-4o-mini" {
				t.Errorf("rerank model %q", cfg.Rerank.Model)
			}
		}},
		{"reranker model defaults to the classification model", map[string]string{settings.EnvOpenRouterModelClassify: "c"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Rerank.Model != "c" {
				t.Errorf("rerank model %q, want c", cfg.Rerank.Model)
			}
		}},
		{"COHERE_API_KEY", map[string]string{settings.EnvCohereAPIKey: " co-key "}, func(t *testing.T, cfg settings.Config) {
			if cfg.Providers.CohereAPIKey.Value() != "co-key" {
				t.Errorf("cohere key %q", cfg.Providers.CohereAPIKey.Value())
			}
		}},
		{"RAG__ENABLED=false", map[string]string{settings.EnvRAGEnabled: "false"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Documents.Enabled || cfg.PipelineOptions().Documents != rag.Off {
				t.Errorf("documents %+v, pipeline %v", cfg.Documents, cfg.PipelineOptions().Documents)
			}
			if tools := cfg.AgentOptions().Tools; !slices.Equal(tools, []string{rag.ToolSearchCatalog, rag.ToolSearchFAQs}) {
				t.Errorf("agentic tools %v", tools)
			}
		}},
		{"documents on by default", nil, func(t *testing.T, cfg settings.Config) {
			if !cfg.Documents.Enabled || cfg.PipelineOptions().Documents != 0 || cfg.AgentOptions().Tools != nil {
				t.Errorf("documents %+v, pipeline %v, tools %v", cfg.Documents, cfg.PipelineOptions().Documents, cfg.AgentOptions().Tools)
			}
		}},
		{"RAG__TOP_K", map[string]string{settings.EnvRAGTopK: "8"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Documents.Limit != 8 || cfg.SearcherOptions().Kinds.Documents.Limit != 8 || cfg.SearcherOptions().Kinds.Catalog.Limit != 0 {
				t.Errorf("documents %+v, searcher %+v", cfg.Documents, cfg.SearcherOptions().Kinds.Documents)
			}
		}},
		{"RAG__MIN_SIMILARITY", map[string]string{settings.EnvRAGMinSimilarity: "0.6"}, func(t *testing.T, cfg settings.Config) {
			th := cfg.SearcherOptions().Kinds.Documents.Threshold
			if cfg.Documents.MinSimilarity == nil || *cfg.Documents.MinSimilarity != 0.6 || th == nil || *th != -0.6 {
				t.Errorf("min similarity %v, threshold %v; want 0.6 and -0.6", cfg.Documents.MinSimilarity, th)
			}
		}},
		{"document threshold left to the Searcher by default", nil, func(t *testing.T, cfg settings.Config) {
			if cfg.SearcherOptions().Kinds.Documents.Threshold != nil {
				t.Error("a document threshold without RAG__MIN_SIMILARITY")
			}
		}},
		{"RAG__DOCUMENTS_PATH", map[string]string{settings.EnvRAGDocumentsPath: " data/documents "}, func(t *testing.T, cfg settings.Config) {
			if cfg.Documents.Path != "data/documents" {
				t.Errorf("path %q", cfg.Documents.Path)
			}
		}},
		{"RAG__CONFIDENCE_THRESHOLD", map[string]string{settings.EnvRAGConfidenceThreshold: "0.75"}, func(t *testing.T, cfg settings.Config) {
			if cfg.Chat.ConfidenceThreshold != 0.75 || cfg.PipelineOptions().Confidence.Medium != 0.75 {
				t.Errorf("confidence %v, pipeline %+v", cfg.Chat.ConfidenceThreshold, cfg.PipelineOptions().Confidence)
			}
		}},
		{"RAG__MAX_CONTEXT_TOKENS", map[string]string{settings.EnvRAGMaxContextTokens: "1500"}, func(t *testing.T, cfg settings.Config) {
			if cfg.PipelineOptions().ContextTokens != 1500 {
				t.Errorf("context tokens %d", cfg.PipelineOptions().ContextTokens)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := settings.ConfigFromEnv(envOf(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, cfg)
		})
	}
}

// TestSeedEmbeddingModelPrecedence: EMBEDDING_MODEL wins over seed 004's
// KB_EMBEDDING_MODEL, which wins over seed 002's RAG__EMBEDDING_MODEL.
func TestSeedEmbeddingModelPrecedence(t *testing.T) {
	for _, tc := range []struct {
		native, kb, rag, want string
	}{
		{"", "", "", settings.DefaultEmbeddingModel},
		{"", "", "r", "r"},
		{"", "k", "r", "k"},
		{"n", "k", "r", "n"},
		{"n", "", "r", "n"},
		{" ", "k", "", "k"},
	} {
		t.Run(fmt.Sprintf("%q/%q/%q", tc.native, tc.kb, tc.rag), func(t *testing.T) {
			cfg, err := settings.ConfigFromEnv(envOf(map[string]string{
				settings.EnvEmbeddingModel: tc.native, settings.EnvKBEmbeddingModel: tc.kb, settings.EnvRAGEmbeddingModel: tc.rag,
			}))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Embedding.Model != tc.want {
				t.Errorf("model %q, want %q", cfg.Embedding.Model, tc.want)
			}
		})
	}
}

// TestSeedEnvNamesInvalid: every bad value is one *EnvError naming its
// variable and value, and the Config is the zero value.
func TestSeedEnvNamesInvalid(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{settings.EnvKBCacheEnabled, "talvez", "not a boolean"},
		{settings.EnvKBCacheTTLMS, "24h", "not a whole number of milliseconds"},
		{settings.EnvKBCacheTTLMS, "1.5", "not a whole number of milliseconds"},
		{settings.EnvKBCacheTTLMS, "0", "0 ms out of range"},
		{settings.EnvKBCacheTTLMS, "-1000", "out of range"},
		{settings.EnvKBCacheTTLMS, "99999999999999999", "out of range"},
		{settings.EnvKBCacheTTLMS, strings.Repeat("9", 30), "not a whole number"},
		{settings.EnvKBCacheMaxSize, "0", "0 out of range [1, 10000000]"},
		{settings.EnvKBCacheMaxSize, "dez mil", "not an integer"},
		{settings.EnvKBCacheMaxSize, "20000000", "out of range"},
		{settings.EnvKBRerankerEnabled, "maybe", "not a boolean"},
		{settings.EnvRAGEnabled, "sim?", "not a boolean"},
		{settings.EnvRAGTopK, "0", "0 out of range [1, 20]"},
		{settings.EnvRAGTopK, "21", "21 out of range [1, 20]"},
		{settings.EnvRAGTopK, "-3", "out of range"},
		{settings.EnvRAGTopK, "cinco", "not an integer"},
		{settings.EnvRAGMinSimilarity, "1.5", "out of range [0, 1]"},
		{settings.EnvRAGMinSimilarity, "-0.1", "out of range [0, 1]"},
		{settings.EnvRAGMinSimilarity, "NaN", "not a finite number"},
		{settings.EnvRAGMinSimilarity, "0,6", "not a number"},
		{settings.EnvRAGConfidenceThreshold, "0.5", "out of range [0.6, 0.85]"},
		{settings.EnvRAGConfidenceThreshold, "0.9", "out of range"},
		{settings.EnvRAGConfidenceThreshold, "Inf", "not a finite number"},
		{settings.EnvRAGConfidenceThreshold, "alta", "not a number"},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			cfg, err := settings.ConfigFromEnv(envOf(map[string]string{tc.name: tc.value, settings.EnvCohereAPIKey: "co-secretkey"}))
			if !errors.Is(err, settings.ErrInvalidConfig) {
				t.Fatalf("error %v does not match ErrInvalidConfig", err)
			}
			if cfg.Cache.Enabled || cfg.Documents.Enabled || cfg.Providers.CohereAPIKey != "" {
				t.Errorf("config on error is not the zero value: %+v", cfg)
			}
			got := envErrors(t, err)
			e := got[tc.name]
			if len(got) != 1 || e == nil {
				t.Fatalf("errors %v, want one for %s", err, tc.name)
			}
			wantValue := tc.value
			if len(wantValue) > 64 {
				wantValue = wantValue[:64] + "…"
			}
			if e.Value != wantValue || !strings.Contains(e.Error(), tc.name+"=") || !strings.Contains(e.Error(), tc.want) {
				t.Errorf("error %q (value %q), want %s=%q and %q", e.Error(), e.Value, tc.name, wantValue, tc.want)
			}
			if strings.Contains(err.Error(), "secretkey") {
				t.Errorf("the Cohere key shows in %v", err)
			}
		})
	}
}

// TestSeedConfigValidate: values set in code are checked as the variables
// are.
func TestSeedConfigValidate(t *testing.T) {
	cfg := settings.DefaultConfig()
	cfg.Cache.TTL = 0
	cfg.Cache.MaxEntries = -1
	cfg.Rerank.Enabled = 7
	cfg.Documents.Limit = -1
	cfg.Documents.MinSimilarity = ptr(2.0)
	cfg.Chat.ConfidenceThreshold = 0
	got := envErrors(t, cfg.Validate())
	for _, name := range []string{settings.EnvKBCacheTTLMS, settings.EnvKBCacheMaxSize, settings.EnvKBRerankerEnabled, settings.EnvRAGTopK, settings.EnvRAGMinSimilarity, settings.EnvRAGConfidenceThreshold} {
		if got[name] == nil {
			t.Errorf("%s not reported (got %v)", name, got)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d errors, want 6: %v", len(got), got)
	}
}

// TestSeedSecretMasked: COHERE_API_KEY never shows when the Config is
// printed, logged or encoded.
func TestSeedSecretMasked(t *testing.T) {
	cfg, err := settings.ConfigFromEnv(envOf(map[string]string{settings.EnvCohereAPIKey: "co-abcdefsecret"}))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", cfg)
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{
		"String": cfg.String(), "%+v": fmt.Sprintf("%+v", cfg), "%#v": fmt.Sprintf("%#v", cfg), "json": string(js), "slog": logs.String(),
	} {
		if strings.Contains(out, "secret") {
			t.Errorf("%s leaks the Cohere key: %s", name, out)
		}
	}
	if !strings.Contains(logs.String(), `"cohere_api_key":"[REDACTED]"`) {
		t.Errorf("the log does not show the key as redacted: %s", logs.String())
	}
}

// scoreOf returns the score res gives candidate ID id, or -1.
func scoreOf(res []rerank.Result, id string) float64 {
	for _, r := range res {
		if r.ID == id {
			return r.Score
		}
	}
	return -1
}

// roundTrip records a request and answers it.
type roundTrip struct {
	req  *http.Request
	body string
}

func (rt *roundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.req = r
	b, _ := io.ReadAll(r.Body)
	rt.body = string(b)
	return &http.Response{
		StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.2}]}`)),
	}, nil
}

// TestSeedReranker: Config.Reranker follows seed 004's order of
// providers: Cohere with COHERE_API_KEY, else the LLM reranker on the chat
// model with KB_RERANKER_MODEL, else the keyword fallback.
func TestSeedReranker(t *testing.T) {
	ctx := context.Background()
	cands := []rerank.Candidate{{ID: "a", Title: "Adubo", Content: "adubo foliar"}, {ID: "b", Title: "Fungicida", Content: "fungicida para ferrugem"}}

	t.Run("Cohere", func(t *testing.T) {
		cfg, err := settings.ConfigFromEnv(envOf(map[string]string{settings.EnvCohereAPIKey: "co-key", settings.EnvKBRerankerModel: "unused"}))
		if err != nil {
			t.Fatal(err)
		}
		rt := &roundTrip{}
		r, err := cfg.Reranker(&http.Client{Transport: rt}, llmtest.NewModel())
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Rerank(ctx, "ferrugem", cands)
		if err != nil {
			t.Fatal(err)
		}
		if rt.req == nil || rt.req.URL.Host != "api.cohere.com" || rt.req.Header.Get("Authorization") != "Bearer co-key" || !strings.Contains(rt.body, `"ferrugem"`) {
			t.Fatalf("request %+v body %s", rt.req, rt.body)
		}
		if len(res) != 2 || scoreOf(res, "b") != 0.9 || scoreOf(res, "a") != 0.2 {
			t.Errorf("results %+v, want Cohere's scores", res)
		}
	})
	t.Run("LLM", func(t *testing.T) {
		cfg, err := settings.ConfigFromEnv(envOf(map[string]string{settings.EnvKBRerankerModel: "openai/gpt-4o-mini"}))
		if err != nil {
			t.Fatal(err)
		}
		model := llmtest.NewModel(llmtest.Text(`{"scores":[{"index":0,"score":0.1},{"index":1,"score":0.95}]}`))
		r, err := cfg.Reranker(nil, model)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Rerank(ctx, "ferrugem", cands)
		if err != nil {
			t.Fatal(err)
		}
		if reqs := model.Requests(); len(reqs) != 1 || reqs[0].Model != "openai/gpt-4o-mini" {
			t.Fatalf("model requests %+v, want one for openai/gpt-4o-mini", reqs)
		}
		if len(res) != 2 || scoreOf(res, "b") != 0.95 || scoreOf(res, "a") != 0.1 {
			t.Errorf("results %+v, want the model's scores", res)
		}
	})
	t.Run("keyword fallback", func(t *testing.T) {
		r, err := settings.DefaultConfig().Reranker(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.(*rerank.Keyword); !ok {
			t.Fatalf("reranker %T, want *rerank.Keyword", r)
		}
		res, err := r.Rerank(ctx, "ferrugem", cands)
		if err != nil || len(res) != 2 || scoreOf(res, "b") <= scoreOf(res, "a") {
			t.Errorf("results %+v (%v), want b above a", res, err)
		}
	})
}

// TestSeedTopKReachesTheSearcher: RAG__TOP_K bounds the hits of a document
// search made with the Config's SearcherOptions.
func TestSeedTopKReachesTheSearcher(t *testing.T) {
	store, emb := fixture(t)
	count := func(env map[string]string) int {
		t.Helper()
		cfg, err := settings.ConfigFromEnv(envOf(env))
		if err != nil {
			t.Fatal(err)
		}
		res, err := rag.NewSearcher(store, emb, cfg.SearcherOptions()).SearchDocuments(context.Background(), rag.Query{Text: "manejo de pragas"})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Hits)
	}
	if n := count(nil); n < 2 {
		t.Fatalf("%d documents without RAG__TOP_K; the test needs at least 2", n)
	}
	if n := count(map[string]string{settings.EnvRAGTopK: "1"}); n != 1 {
		t.Errorf("%d documents with RAG__TOP_K=1", n)
	}
}

// hashEmbedder returns a 4-dimension hash embedder.
func hashEmbedder(t *testing.T) *vector.HashEmbedder {
	t.Helper()
	e, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 4})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
