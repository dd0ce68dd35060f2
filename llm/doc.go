// Package llm is hybridrag's provider-agnostic port to chat models: messages and tool calls, tool definitions with JSON
// schemas, the tool loop with its iteration limit and confirmations,
// structured output, and fallbacks. Besides the standard library it imports
// github.com/santhosh-tekuri/jsonschema/v6 to validate JSON Schema (with the
// location of every violation) and github.com/google/jsonschema-go to infer
// schemas from Go types.
//
// # Models
//
// A ChatModel completes a Request (messages, tool definitions, ToolChoice,
// sampling options, optional JSON-schema ResponseFormat) into a Response, or
// streams it as an iter.Seq2[StreamEvent, error]: text deltas as they arrive,
// each complete tool call, then a StreamDone event with the assembled
// Response. The adapter for OpenAI-compatible APIs (OpenAI, OpenRouter,
// Ollama, vLLM) is llm/openai; llm/llmtest has a scripted fake.
//
// Tools are passed per request, never bound to a model, so a model value is
// immutable and shareable (a mutating BindTools is a known data race in other
// frameworks).
//
// # Tools and the loop
//
// A Tool is a ToolDefinition (name, description, JSON-schema parameters,
// input examples) plus RequiresConfirmation and a Go ToolHandler.
// NewTypedTool builds one from a typed Go function, inferring the parameters
// schema from the argument struct (SchemaFor). RunTools
// sends a request with the tools, executes the calls the model asks for and
// loops until the model answers, at most RunOptions.MaxIterations model calls
// (default 5, then *MaxIterationsExceededError). Arguments are validated
// against the tool's schema (JSON Schema 2020-12, 2019-09 or drafts 4 to 7, $ref and $defs
// included, never loading other documents) before a handler runs; invalid arguments, unknown tools, handler errors, panics and
// timeouts go back to the model as error results instead of failing the run.
// Calls of one turn run in parallel. RunOptions.OnEvent reports each model
// response, tool result and (when streaming) text delta with timings and
// usage; RunResult keeps the same data per Iteration.
//
// A tool with RequiresConfirmation is not executed: RunTools returns a
// PendingConfirmation (serializable, with a pt-BR summary for the user), and
// ResumeConfirmation later resolves it with a Decision (DecisionConfirm,
// DecisionReject, or DecisionCorrect with a merge patch of the arguments,
// validated) and continues the loop. DetectDecision
// classifies a free-text user reply into a Decision with a forced tool call;
// KeywordDecision does it offline from pt-BR and English keywords ("sim",
// "pode", "não", "cancela"; anything else is a correction).
//
// # Structured output and fallbacks
//
// CompleteJSON requests a JSON-schema answer and validates and decodes it;
// SchemaFor derives the schema to request from the Go type the answer
// decodes into.
// WithFallback tries a second model when the first fails with a retryable or
// server error, WithFallbackModel another model name on the same client;
// FallbackMessages picks the pt-BR text for a failure (timeout, rate limit,
// unavailable, an empty answer, error). Retries
// with backoff are the provider client's job (openai-go option.WithMaxRetries),
// not this package's; llm/openai says why its waits (0.5 s, 1 s, 2 s with
// jitter, or the server's Retry-After) are kept instead of waiting 1 s,
// 2 s, 4 s.
//
// # Tokens
//
// TokenCounter counts tokens with a real tokenizer (TokenCounterFunc adapts
// a function); EstimateTokens (runes / 4, rounded up) is the default.
// Counting is local and cheap; the rag Pipeline budgets its context with
// it.
//
// # Errors
//
// Sentinels for errors.Is: ErrMaxIterations, ErrEmptyAnswer,
// ErrInvalidRequest, ErrInvalidResponse, ErrInvalidTool, ErrInvalidSchema,
// ErrInvalidArguments, ErrInvalidOutput, ErrConfirmationExpired. Typed errors
// for errors.As: *APIError (provider status, code, Retryable; secrets
// redacted), *MaxIterationsExceededError, *ValidationError. IsRetryable
// inspects any error chain. Context errors are returned wrapped, so
// errors.Is(err, context.DeadlineExceeded) works everywhere.
//
// # Concurrency
//
// All functions are safe for concurrent use when the models and tool handlers
// given to them are. RunTools calls handlers of one turn concurrently (bounded
// by RunOptions.MaxParallelTools) and OnEvent from a single goroutine.
// Request, Response, Message, Tool and PendingConfirmation are plain values;
// functions never modify the ones they are given. A compiled Schema is
// immutable and may be shared.
package llm
