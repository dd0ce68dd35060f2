package settings_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
)

// fuzzVars are the variables ConfigFromEnv reads, in the order FuzzConfigFromEnv
// assigns them the lines of its input.
var fuzzVars = []string{
	settings.EnvHybridSearchEnhanced, settings.EnvFAQHybridEnabled,
	settings.EnvCatalogVectorThreshold, settings.EnvFAQVectorThreshold,
	settings.EnvCatalogVectorWeight, settings.EnvCatalogLexicalWeight,
	settings.EnvFAQVectorWeight, settings.EnvFAQLexicalWeight,
	settings.EnvCatalogLexicalCandidateMultiplier, settings.EnvCatalogLexicalCandidateMax,
	settings.EnvCatalogVectorCandidateMultiplier, settings.EnvCatalogVectorCandidateMax,
	settings.EnvCatalogVectorChunksPerItem, settings.EnvCatalogVectorSnippetMaxChars,
	settings.EnvCatalogPairPriorityBonus, settings.EnvCatalogQueryKeywordsEnabled,
	settings.EnvOpenRouterAPIKey, settings.EnvOpenRouterSiteURL, settings.EnvOpenRouterSiteName,
	settings.EnvOpenAIAPIKey, settings.EnvOpenAIBaseURL, settings.EnvOpenAIModel,
	settings.EnvOpenRouterModelClassify, settings.EnvOpenRouterModelClassifyFallback,
	settings.EnvOpenRouterModelAnswer, settings.EnvEmbeddingModel,
	settings.EnvEmbeddingDimensions, settings.EnvEmbeddingBatchSize,
	settings.EnvChatHistoryContextLimit, settings.EnvRAGMaxContextTokens,
	settings.EnvCatalogAIModel, settings.EnvCatalogAIMaxPrice,
	// Seed 004's and seed 002's names, appended so that the corpus keeps
	// its meaning.
	settings.EnvKBEmbeddingModel, settings.EnvKBCacheEnabled, settings.EnvKBCacheTTLMS, settings.EnvKBCacheMaxSize,
	settings.EnvKBRerankerEnabled, settings.EnvKBRerankerModel, settings.EnvCohereAPIKey,
	settings.EnvRAGEnabled, settings.EnvRAGTopK, settings.EnvRAGMinSimilarity, settings.EnvRAGDocumentsPath,
	settings.EnvRAGEmbeddingModel, settings.EnvRAGConfidenceThreshold,
	settings.EnvOpenRouterModelAnswerFallback,
}

// fuzzEnv maps the lines of in to fuzzVars, in order.
func fuzzEnv(in string) map[string]string {
	env := map[string]string{}
	for i, v := range strings.SplitN(in, "\n", len(fuzzVars)) {
		env[fuzzVars[i]] = v
	}
	return env
}

// fuzzLines is the inverse of fuzzEnv, for seeds.
func fuzzLines(env map[string]string) string {
	lines := make([]string, len(fuzzVars))
	for i, name := range fuzzVars {
		lines[i] = env[name]
	}
	return strings.Join(lines, "\n")
}

// FuzzConfigFromEnv gives ConfigFromEnv arbitrary values, line i of the
// input being the value of fuzzVars[i]. It must return either a Config
// that Validate accepts and that encodes, or the zero Config and an error
// joining *EnvErrors, each naming a variable that was set; neither may show
// an API key or a URL's password.
//
//	go test -run '^$' -fuzz '^FuzzConfigFromEnv$' -fuzztime 60s ./examples/internal/settings
func FuzzConfigFromEnv(f *testing.F) {
	for _, env := range []map[string]string{
		nil,
		{
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
			settings.EnvEmbeddingModel:                    "nomic-embed-text",
			settings.EnvEmbeddingDimensions:               "768",
			settings.EnvEmbeddingBatchSize:                "32",
			settings.EnvChatHistoryContextLimit:           "10",
			settings.EnvRAGMaxContextTokens:               "3000",
			settings.EnvCatalogAIModel:                    "openai/gpt-4o",
			settings.EnvCatalogAIMaxPrice:                 "25000",
		},
		{
			settings.EnvHybridSearchEnhanced:             "sim",
			settings.EnvFAQHybridEnabled:                 "1",
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
		},
		{
			settings.EnvOpenAIBaseURL:                "ftp://x",
			settings.EnvOpenRouterSiteURL:            "/relative",
			settings.EnvEmbeddingModel:               " ",
			settings.EnvCatalogAIMaxPrice:            "1e309",
			settings.EnvFAQLexicalWeight:             "0x1p-2",
			settings.EnvCatalogVectorSnippetMaxChars: "1_000",
		},
		{
			settings.EnvKBEmbeddingModel: "kb-model", settings.EnvKBCacheEnabled: "false", settings.EnvKBCacheTTLMS: "60000",
			settings.EnvKBCacheMaxSize: "500", settings.EnvKBRerankerEnabled: "true", settings.EnvKBRerankerModel: "gpt-4o-mini",
			settings.EnvCohereAPIKey: "co-secretsecret", settings.EnvRAGEnabled: "false", settings.EnvRAGTopK: "5",
			settings.EnvRAGMinSimilarity: "0.6", settings.EnvRAGDocumentsPath: "data/documents",
			settings.EnvRAGEmbeddingModel: "rag-model", settings.EnvRAGConfidenceThreshold: "0.70",
		},
		{
			settings.EnvKBCacheEnabled: "talvez", settings.EnvKBCacheTTLMS: "-1", settings.EnvKBCacheMaxSize: "0",
			settings.EnvKBRerankerEnabled: "2", settings.EnvCohereAPIKey: "co-topsecretvalue", settings.EnvRAGEnabled: "?",
			settings.EnvRAGTopK: "0", settings.EnvRAGMinSimilarity: "1.01", settings.EnvRAGConfidenceThreshold: "NaN",
		},
		{
			settings.EnvEmbeddingDimensions: strings.Repeat("9", 100),
			settings.EnvOpenAIModel:         "modelo-ção",
			settings.EnvCatalogAIModel:      "\x00\xff",
		},
	} {
		f.Add(fuzzLines(env))
	}
	f.Fuzz(func(t *testing.T, in string) {
		env := fuzzEnv(in)
		getenv := func(k string) string { return env[k] }
		cfg, err := settings.ConfigFromEnv(getenv)

		// The API keys are never parsed: with them blank, the outcome is
		// the same but for the keys themselves.
		blank := map[string]string{}
		for k, v := range env {
			blank[k] = v
		}
		blank[settings.EnvOpenRouterAPIKey], blank[settings.EnvOpenAIAPIKey], blank[settings.EnvCohereAPIKey] = "", "", ""
		cfgBlank, errBlank := settings.ConfigFromEnv(func(k string) string { return blank[k] })
		if (err == nil) != (errBlank == nil) || err != nil && err.Error() != errBlank.Error() {
			t.Fatalf("API keys change the outcome: %v / %v", err, errBlank)
		}
		keys := []string{strings.TrimSpace(env[settings.EnvOpenRouterAPIKey]), strings.TrimSpace(env[settings.EnvOpenAIAPIKey]), strings.TrimSpace(env[settings.EnvCohereAPIKey])}

		if err == nil {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("ConfigFromEnv returned a Config that Validate rejects: %v", verr)
			}
			if _, jerr := json.Marshal(cfg); jerr != nil {
				t.Fatalf("Config does not encode: %v", jerr)
			}
			shown := func(c settings.Config) string {
				j, _ := json.Marshal(c)
				return c.String() + fmt.Sprintf("%v %+v %#v %s %q", c, c, c, c, c.Providers.OpenAIAPIKey) + string(j)
			}
			out, outBlank := shown(cfg), shown(cfgBlank)
			for _, k := range keys {
				if k != "" && !strings.Contains(outBlank, k) && !strings.Contains("[REDACTED]", k) && strings.Contains(out, k) {
					t.Fatalf("an API key shows in the printed or encoded Config: %q", k)
				}
			}
			_, _ = cfg.SearcherOptions(), cfg.PipelineOptions()
			_, _ = cfg.AgentOptions(), cfg.CacheOptions()
			if _, rerr := cfg.Reranker(nil, nil); rerr != nil {
				t.Fatalf("Reranker of a valid Config: %v", rerr)
			}
			return
		}

		if !reflect.DeepEqual(cfg, settings.Config{}) {
			t.Fatalf("Config on error is not the zero value: %+v", cfg)
		}
		if !errors.Is(err, settings.ErrInvalidConfig) {
			t.Fatalf("error %v does not match ErrInvalidConfig", err)
		}
		joined, ok := err.(interface{ Unwrap() []error })
		if !ok || len(joined.Unwrap()) == 0 {
			t.Fatalf("error %v (%T) is not a joined list", err, err)
		}
		for _, e := range joined.Unwrap() {
			var ee *settings.EnvError
			if !errors.As(e, &ee) {
				t.Fatalf("%v (%T) is not an *EnvError", e, e)
			}
			if _, set := env[ee.Var]; !set || strings.TrimSpace(env[ee.Var]) == "" {
				t.Fatalf("error names %q, which is not set: %v", ee.Var, ee)
			}
			if n := utf8.RuneCountInString(ee.Value); n > 65 {
				t.Fatalf("error value of %d runes: %v", n, ee)
			}
		}
		msg := err.Error()
		for _, k := range keys {
			if k != "" && strings.Contains(msg, k) && !strings.Contains(errBlank.Error(), k) {
				t.Fatalf("an API key shows in the error: %q", k)
			}
		}
		// A URL's password shows nowhere but where the rest of the input
		// puts the same text.
		for _, name := range []string{settings.EnvOpenAIBaseURL, settings.EnvOpenRouterSiteURL} {
			u, perr := url.Parse(strings.TrimSpace(env[name]))
			if perr != nil || u.User == nil {
				continue
			}
			pw, has := u.User.Password()
			if !has || pw == "" {
				continue
			}
			without := map[string]string{}
			for k, v := range env {
				without[k] = v
			}
			without[name] = ""
			_, errWithout := settings.ConfigFromEnv(func(k string) string { return without[k] })
			other := u.Redacted()
			if errWithout != nil {
				other += errWithout.Error()
			}
			if strings.Contains(msg, pw) && !strings.Contains(other, pw) {
				t.Fatalf("the password of %s shows in the error: %q in %v", name, pw, err)
			}
		}
	})
}
