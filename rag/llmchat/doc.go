// Package llmchat implements the chat components of a [rag.Pipeline] on a
// chat model, the llm.ChatModel port (OpenAI, OpenRouter, Ollama or vLLM
// through llm/openai; a scripted llm/llmtest.Model in tests):
//
//   - [Classifier], a [rag.Classifier]: structured output {intent,
//     confidence, reason} at temperature 0, a fallback model when the
//     primary fails, and optionally an offline classifier last
//     (offline.KeywordClassifier);
//   - [Summarizer], a [rag.Summarizer]: structured output {summary,
//     catalog_query} condensing a long history, set as
//     [rag.PipelineOptions.Summarizer];
//   - [Answerer], a [rag.Answerer] and [rag.StreamAnswerer]: a system
//     prompt, the history as prior messages, then the pipeline's
//     consolidated context ending with the question. An empty answer is an
//     error, so the Pipeline answers with its fallback message.
//
// Their prompts are text/template files embedded in the module, in pt-BR
// by default or English (the Language option), pinned by golden tests
// (testdata/prompts); the Answerer's SystemPrompt replaces its built-in
// instructions. Sampling settings (temperature, token caps) are the
// model's: the classifier and summarizer ask for temperature 0 and a small
// JSON answer, the Answerer leaves both to the provider.
//
// These components do not decide what is retrieved or cited: the
// Pipeline plans the searches, keeps the relevant hits and abstains when
// there are none (the Answerer is then told, through
// [rag.AnswerRequest.Abstained], to say so). The agentic mode, where the
// model calls the searches as tools, is [rag.Agent]. With no
// model at all, package [github.com/hybridrag/hybridrag/rag/offline] has
// the keyword classifier and the extractive answerer.
//
// # Errors
//
// The constructors fail for a nil model and for a language without
// prompts ([rag.ErrUnsupportedLanguage]); they do no I/O. A model's answer
// that is not the requested JSON, or holds an unknown intent, wraps
// llm.ErrInvalidOutput; an empty answer wraps llm.ErrEmptyAnswer; model
// errors are returned wrapped, and a done context as itself.
//
// # Concurrency
//
// Classifier, Summarizer and Answerer are immutable and safe for
// concurrent use when their models are. They never log.
package llmchat
