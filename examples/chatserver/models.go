package main

import (
	"cmp"
	"fmt"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/llm"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/vector"
)

// Client settings of the real-model switches.
const (
	defaultOpenRouterModel = "openai/gpt-4o-mini"
	modelRequestTimeout    = 45 * time.Second
	modelMaxRetries        = 3 // the seeds' 3 retries with backoff
)

// models are the components the environment selects.
type models struct {
	classifier rag.Classifier
	answerer   rag.Answerer
	// embedder is nil for the offline hash embedder (built by the caller
	// at dims dimensions).
	embedder vector.Embedder
	dims     int
	// chat is the chat model (nil offline): agentic turns and catalog
	// assist use it.
	chat llm.ChatModel

	classifierName, answererName, summarizerName, chatModel, embedderName string

	searcherOptions rag.SearcherOptions
	pipelineOptions rag.PipelineOptions
	indexerOptions  ingest.IndexerOptions
	agenticOptions  rag.AgentOptions
	rag             settings.Config
}

// openModels builds the classifier, answerer, summarizer, embedder and the
// options rc (settings.ConfigFromEnv) selects: the offline components without
// keys; with OPENROUTER_API_KEY or OPENAI_API_KEY the LLM classifier (with
// the keyword classifier as its last resort), answerer and summarizer;
// with OPENAI_API_KEY the OpenAI (or OPENAI_BASE_URL) embedder. It does no
// I/O.
func openModels(rc settings.Config) (models, error) {
	m := models{
		classifier:      offline.KeywordClassifier{},
		answerer:        offline.ExtractiveAnswerer{},
		classifierName:  "keyword (offline)",
		answererName:    "extractive (offline)",
		dims:            rc.Embedding.Dimensions,
		searcherOptions: rc.SearcherOptions(),
		pipelineOptions: rc.PipelineOptions(),
		indexerOptions:  rc.IndexerOptions(),
		agenticOptions:  rc.AgentOptions(),
		rag:             rc,
	}
	if ep, ok := rc.Providers.Embeddings(); ok {
		e := llmopenai.NewEmbedder(newClient(ep), llmopenai.EmbedderOptions{Model: rc.Embedding.Model, Dimensions: rc.Embedding.Dimensions})
		m.embedder = e
		m.embedderName = ep.Provider + ":" + e.Model()
	}
	ep, ok := rc.Providers.Chat()
	if !ok {
		return m, nil
	}
	name := rc.Chat.AnswerModel
	if ep.Provider == "openrouter" {
		name = cmp.Or(name, defaultOpenRouterModel)
	}
	chat := llmopenai.New(newClient(ep), llmopenai.Options{Model: name})
	copts := rc.ClassifierOptions()
	copts.Offline = offline.KeywordClassifier{}
	cls, err := llmchat.NewClassifier(chat, copts)
	if err != nil {
		return m, fmt.Errorf("classifier: %w", err)
	}
	ans, err := llmchat.NewAnswerer(chat, rc.AnswererOptions())
	if err != nil {
		return m, fmt.Errorf("answerer: %w", err)
	}
	sum, err := llmchat.NewSummarizer(chat, rc.SummarizerOptions())
	if err != nil {
		return m, fmt.Errorf("summarizer: %w", err)
	}
	m.classifier, m.answerer, m.chat = cls, ans, chat
	m.pipelineOptions.Summarizer = sum
	m.chatModel = ep.Provider + ":" + chat.Name()
	m.classifierName = "llm " + ep.Provider + ":" + cmp.Or(rc.Chat.ClassifyModel, chat.Name()) + " (keyword fallback)"
	m.answererName = "llm " + m.chatModel
	m.summarizerName = "llm " + ep.Provider + ":" + cmp.Or(rc.Chat.ClassifyModel, chat.Name())
	return m, nil
}

// newClient returns an openai-go client for ep, with the seeds' retries and
// a per-attempt timeout.
func newClient(ep settings.Endpoint) oai.Client {
	opts := []option.RequestOption{option.WithAPIKey(ep.APIKey.Value()),
		option.WithMaxRetries(modelMaxRetries), option.WithRequestTimeout(modelRequestTimeout)}
	if ep.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(ep.BaseURL))
	}
	for k, v := range ep.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return oai.NewClient(opts...)
}
