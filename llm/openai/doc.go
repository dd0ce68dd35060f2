// Package openai adapts github.com/openai/openai-go/v3 to hybridrag's ports:
// Model implements llm.ChatModel on the chat completions API (tools,
// tool_choice, streaming with tool-call deltas, usage, JSON-schema structured
// output) and Embedder implements vector.Embedder on the embeddings API.
//
// The package name clashes with openai-go's; import it under another name:
//
//	import (
//		"github.com/openai/openai-go/v3"
//		"github.com/openai/openai-go/v3/option"
//		llmopenai "github.com/hybridrag/hybridrag/llm/openai"
//	)
//
// # Clients
//
// New and NewEmbedder take a ready openai.Client and do no I/O; they never read
// the environment (note that openai.NewClient itself reads OPENAI_API_KEY,
// OPENAI_BASE_URL and friends as defaults, which explicit options override).
// Any OpenAI-compatible server works through the base URL:
//
//	// OpenAI
//	c := openai.NewClient(option.WithAPIKey(key), option.WithMaxRetries(3))
//
//	// OpenRouter, with its optional site headers for attribution
//	c := openai.NewClient(
//		option.WithBaseURL("https://openrouter.ai/api/v1"),
//		option.WithAPIKey(openRouterKey),
//		option.WithHeader("HTTP-Referer", "https://shop.example.com"),
//		option.WithHeader("X-Title", "Agro Shop"),
//	)
//
//	// Ollama (the key is ignored but must be non-empty)
//	c := openai.NewClient(option.WithBaseURL("http://localhost:11434/v1"), option.WithAPIKey("ollama"))
//
//	// vLLM
//	c := openai.NewClient(option.WithBaseURL("http://localhost:8000/v1"), option.WithAPIKey("EMPTY"))
//
//	chat := llmopenai.New(c, llmopenai.Options{Model: "gpt-4o-mini"})
//	emb := llmopenai.NewEmbedder(c, llmopenai.EmbedderOptions{Dimensions: 1536})
//
// For local servers, Options.LegacyMaxTokens, Options.DisableStreamUsage and
// EmbedderOptions.OmitDimensions switch off parameters some of them reject.
//
// # Retries
//
// Retries are the client's: openai-go retries connection errors, 408, 409,
// 429 and 5xx with exponential backoff (0.5 s, 1 s, 2 s, ... with jitter,
// capped at 8 s) and honors Retry-After / Retry-After-Ms headers. Configure it
// with option.WithMaxRetries (default 2; the demo server sets 3) and
// option.WithRequestTimeout (per attempt); the context bounds all attempts.
// This package adds no retry loop of its own; combine models with
// llm.WithFallback for a second provider.
//
// The waits are not a fixed 1 s, 2 s, 4 s schedule. openai-go v3 waits 0.5 s × 2^n less up to a quarter of jitter —
// 0.375–0.5 s, 0.75–1 s, 1.5–2 s — unless the response carries
// Retry-After, which it follows (up to 2 minutes; past that it returns
// the error at once); it has no option for the base delay
// (option.WithMaxRetryDelay only caps it). That is kept on purpose: a
// rate limit that carries Retry-After is waited out as the server asks,
// not on a fixed schedule; the jitter keeps concurrent chat turns from
// retrying in step; and with
// three retries a turn waits at most about 3.5 s of backoff instead of
// 7 s while the user watches. A fixed schedule needs
// option.WithMaxRetries(0) and a retrying option.WithMiddleware. For
// embeddings at ingestion, where nobody waits on each request,
// vector.WithRetry's defaults are longer (4 attempts, waits of up to 1 s,
// 2 s, 4 s, full jitter).
//
// # Errors
//
// HTTP failures are *llm.APIError with StatusCode, Code, a message with
// secrets redacted and Retryable (429, 5xx, 408, 409 and transport failures);
// the SDK's error is not kept because it holds the request and its
// credentials. Context errors stay matchable with errors.Is. Malformed JSON,
// a completion without choices, a stream without a finish reason and
// embeddings of the wrong count or dimension wrap llm.ErrInvalidResponse;
// requests failing llm.Request.Validate wrap llm.ErrInvalidRequest and are not
// sent.
//
// # Concurrency
//
// Model and Embedder are immutable and safe for concurrent use; WithModel
// returns a copy.
package openai
