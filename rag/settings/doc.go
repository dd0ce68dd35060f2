// Package settings maps the seeds' environment variables onto the options
// of the rag packages, for programs that are configured the way the seeds
// were. The library itself never reads the environment: every knob is a
// field of an options struct whose zero value means the seeds' default,
// and this package is one way to fill them.
//
// [Config] gathers every knob, with the seeds' defaults ([DefaultConfig]).
// [ConfigFromEnv] reads the seeds' variable names (HYBRID_SEARCH_ENHANCED,
// CATALOG_VECTOR_THRESHOLD, OPENROUTER_MODEL_ANSWER, EMBEDDING_DIMENSIONS,
// …; the Env* constants) through the getenv it is given, and maps to the
// components' options with [Config.SearcherOptions],
// [Config.PipelineOptions], [Config.AgenticOptions],
// [Config.IndexerOptions], [Config.ClassifierOptions],
// [Config.SummarizerOptions], [Config.AnswererOptions] and
// [Config.AssistOptions]. [ProviderConfig.Chat] and
// [ProviderConfig.Embeddings] say which OpenAI-compatible endpoint serves
// chat and embeddings, if any:
//
//	cfg, err := settings.ConfigFromEnv(os.Getenv)
//	if err != nil {
//		return err // names every invalid variable
//	}
//	s := rag.NewSearcher(store, emb, cfg.SearcherOptions())
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
