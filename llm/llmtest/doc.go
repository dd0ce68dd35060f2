// Package llmtest provides hand-written fakes of hybridrag's model ports for
// unit tests: Model, a scripted llm.ChatModel. (For an embedder, use
// vector.NewHashEmbedder, deterministic, or a vector.EmbedderFunc.)
//
// # Model
//
// Model answers each call with the next Step of its script (a text answer,
// tool calls, an error, a hang until the context is done, or a function of the
// request) and records every request it receives. It validates requests with
// llm.Request.Validate, like the real adapter, but it does not look at their
// content otherwise: it does not tokenize, count tokens, honor ToolChoice,
// Temperature, MaxTokens or ResponseFormat, or check that scripted tool calls
// name offered tools. Usage is whatever the script says. When the script is
// exhausted it returns ErrScriptExhausted.
//
// # Errors
//
// ErrScriptExhausted when a Model has no step left; scripted errors are
// returned as given; context errors are returned unwrapped.
//
// # Concurrency
//
// Model is safe for concurrent use; steps are consumed in the
// order calls acquire the Model's lock.
package llmtest
