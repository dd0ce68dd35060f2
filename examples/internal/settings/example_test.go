package settings_test

import (
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
)

// ConfigFromEnv reads the seeds' variables through the getenv it is given
// (os.Getenv in a program), reports every bad value by name and masks keys.
func ExampleConfigFromEnv() {
	env := map[string]string{
		"HYBRID_SEARCH_ENHANCED":     "true",
		"FAQ_HYBRID_ENABLED":         "false",
		"CATALOG_VECTOR_WEIGHT":      "5",
		"OPENROUTER_API_KEY":         "sk-or-v1-0123456789",
		"OPENROUTER_MODEL_ANSWER":    "openai/gpt-4o-mini",
		"CHAT_HISTORY_CONTEXT_LIMIT": "8",
	}
	cfg, err := settings.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	so := cfg.SearcherOptions()
	fmt.Println("fusion:", so.Fusion, "faq legs:", so.Kinds.FAQs.Legs, "catalog vector weight:", so.Kinds.Catalog.Weights.Vector)
	fmt.Println("history:", cfg.PipelineOptions().HistoryLimit, "answer model:", cfg.Chat.AnswerModel)
	chat, _ := cfg.Providers.Chat()
	fmt.Println("chat provider:", chat.Provider, chat.BaseURL, chat.APIKey)

	env["EMBEDDING_DIMENSIONS"] = "-3"
	env["CATALOG_AI_MAX_PRICE"] = "caro"
	_, err = settings.ConfigFromEnv(func(k string) string { return env[k] })
	fmt.Println(err)
	fmt.Println(errors.Is(err, settings.ErrInvalidConfig))
	// Output:
	// fusion: weighted faq legs: lexical catalog vector weight: 5
	// history: 8 answer model: openai/gpt-4o-mini
	// chat provider: openrouter https://openrouter.ai/api/v1 [REDACTED]
	// rag: config: CATALOG_AI_MAX_PRICE="caro": not a number
	// rag: config: EMBEDDING_DIMENSIONS="-3": -3 out of range [1, 16000]
	// true
}
