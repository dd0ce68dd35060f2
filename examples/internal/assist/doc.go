// Package assist suggests the missing fields of a catalog item with a chat
// model: the description, category, price and tags a catalog editor left
// empty. It is the demo server's catalog editing aid (/api/catalog/assist),
// apart from search and chat, so it lives in the examples module rather
// than in the library.
//
// [Assist] asks the llm.ChatModel it is given for the empty fields only,
// with structured output, and makes no model call when none is empty.
// Every suggestion is validated before it is returned: a price must be a
// number in [0, MaxPrice] (rounded to cents), a category must be one of
// the known categories when they are given (matched ignoring case and
// accents, returned with the known spelling), tags are trimmed,
// deduplicated and capped. What fails is reported in
// [Result.Dropped] with a reason, never returned as a suggestion.
// [Suggestions.Apply] fills the suggestions into a copy of the item and
// never overwrites a filled field. The prompt is audited like the
// pipeline's tools (tool "catalog-ai-helper") when [Options] has a
// Logger.
//
// # Errors
//
// [ErrInput] for an item without a name, [ErrOptions] for an
// impossible MaxPrice, [rag.ErrUnsupportedLanguage] for a language without
// prompts, and the model's error — wrapping llm.ErrInvalidOutput for an
// answer that is not the requested JSON.
//
// # Concurrency
//
// Assist is safe for concurrent use when its model is.
package assist
