// Package settings maps environment variables onto the options of the
// hybridrag packages, for the example programs (chatserver, ingest, eval).
// It is environment wiring for programs, not part of the library: the
// library never reads the environment, every knob is a field of an
// options struct whose zero value means the default, and this package is
// one way to fill them. A program configured the same way can copy it.
//
// The variable names are those of the systems hybridrag replaces (the
// "seeds" of the README's "Seed numbers" table), so a deployment of one of
// them keeps its environment.
//
// [Config] gathers every knob, with the seeds' defaults ([DefaultConfig]).
// [ConfigFromEnv] reads the seeds' variable names (HYBRID_SEARCH_ENHANCED,
// CATALOG_VECTOR_THRESHOLD, OPENROUTER_MODEL_ANSWER, EMBEDDING_DIMENSIONS,
// …; the Env* constants) through the getenv it is given, and maps to the
// components' options with [Config.SearcherOptions],
// [Config.PipelineOptions], [Config.AgentOptions],
// [Config.IndexerOptions], [Config.ClassifierOptions],
// [Config.SummarizerOptions], [Config.AnswererOptions],
// [Config.AssistOptions] and [Config.CacheOptions]. [ProviderConfig.Chat] and
// [ProviderConfig.Embeddings] say which OpenAI-compatible endpoint serves
// chat and embeddings, if any:
//
//	cfg, err := settings.ConfigFromEnv(os.Getenv)
//	if err != nil {
//		return err // names every invalid variable
//	}
//	s := rag.NewSearcher(store, emb, cfg.SearcherOptions())
//
// # The seeds' other names
//
// Seed 004 (the knowledge base) and seed 002 (document RAG, prefix RAG__)
// name their own variables; ConfigFromEnv maps each onto the knob that
// does the same thing, and where the library has no such feature the
// field's documentation says so:
//
//	KB_EMBEDDING_MODEL         Embedding.Model (EMBEDDING_MODEL wins)
//	RAG__EMBEDDING_MODEL       Embedding.Model (EMBEDDING_MODEL and KB_EMBEDDING_MODEL win)
//	KB_CACHE_ENABLED           Cache.Enabled → Config.QueryEmbedder (vector/cache, in memory, not a table)
//	KB_CACHE_TTL_MS            Cache.TTL → cache.Options.TTL
//	KB_CACHE_MAX_SIZE          Cache.MaxEntries → cache.Options.MaxEntries
//	KB_RERANKER_ENABLED        Rerank.Enabled → SearcherOptions.Rerank (unset: off, the library's default)
//	KB_RERANKER_MODEL          Rerank.Model → the LLM reranker of Config.Reranker
//	COHERE_API_KEY             Providers.CohereAPIKey → Cohere's rerank API in Config.Reranker
//	RAG__ENABLED               Documents.Enabled → PipelineOptions.Documents, AgentOptions.Tools
//	RAG__TOP_K                 Documents.Limit → SearcherOptions.Kinds.Documents.Limit
//	RAG__MIN_SIMILARITY        Documents.MinSimilarity → SearcherOptions.Kinds.Documents.Threshold (negated)
//	RAG__MAX_CONTEXT_TOKENS    Chat.ContextTokens → PipelineOptions.ContextTokens
//	RAG__CONFIDENCE_THRESHOLD  Chat.ConfidenceThreshold → PipelineOptions.Confidence.Medium
//	RAG__DOCUMENTS_PATH        Documents.Path, for programs (the library reads no files)
//
// One name is the project's, in the seeds' style: OPENROUTER_MODEL_ANSWER_FALLBACK
// ([EnvOpenRouterModelAnswerFallback]) names the model the answer falls
// back to on the same provider when the answer model fails with a
// retryable or server error, mapped by
// [Config.AnswererOptions] and [Config.AgentOptions] onto
// llm.WithFallbackModel.
//
// [Config.QueryEmbedder] wraps the query embedder in the cache and
// [Config.Reranker] builds the reranker in seed 004's order (Cohere, then
// a chat model, then the offline keyword reranker). Differences from the
// seeds are documented on the fields: the cache lives in memory and has
// no oldest/newest entry dates, reranking stays off unless enabled, the
// reranker model and the documents path have no built-in default, and
// RAG__CONFIDENCE_THRESHOLD sets the medium level (its default, 0.70, is
// the seed's MÉDIA threshold).
//
// API keys are [Secret] values: they print, log and marshal as
// "[REDACTED]", and so does a Config ([Config.String], [Config.LogValue],
// JSON); [Secret.Value] returns the key for the client that needs it.
//
// # Errors
//
// ConfigFromEnv and [Config.Validate] report every invalid value, not
// just the first, as an [*EnvError] naming the variable, joined with
// errors.Join; each matches [ErrInvalidConfig] with errors.Is. The error
// never contains an API key or a URL's password.
//
// # Concurrency
//
// Config is a plain value and its methods do not modify it; it is safe to
// share once built.
package settings
