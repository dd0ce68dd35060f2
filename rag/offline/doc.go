// Package offline holds the chat components that need no model: a
// [KeywordClassifier] and an [ExtractiveAnswerer], the Classifier and
// Answerer of a [rag.Pipeline] that runs with no API key, no network and
// the same answer every time, and [NewEmbedder], the hash embedder for
// indexing and searching without a model. The demo server and the chat
// evaluation use them by default; package [github.com/hybridrag/hybridrag/rag/llmchat]
// has the implementations on a chat model.
//
// [KeywordClassifier] decides the intent from keyword lists (pt-BR and
// English; the Default*Keywords variables) counted in the normalized,
// stemmed message, and from the cultures and treatments of a synonym
// table; definitional questions ("o que é vazio sanitário?") count as
// support. It is also the usual last resort of the model classifier
// (llmchat.ClassifierOptions.Offline).
//
// [ExtractiveAnswerer] leads with the fact asked, quoted from the hits it
// is given — the leaflet row of the crop asked (leaflet tables, crop lines
// and "Dose: …" sentences are read), a "Label: value" line, the FAQ
// sentence, the best sentences of a document's Markdown section; in a
// Pipeline, the passages its context quotes — in the
// question's language ([DetectLanguage]), without Markdown, and cites only
// what it quoted ([rag.Answer.Cited]). When the turn abstains it says the
// store has nothing on it ([AbstainAnswer], [AbstainAnswerEnglish]); small
// talk gets [GreetingAnswer] ([GreetingAnswerEnglish]), and thanks or a
// goodbye a short closing ("De nada! …", "Até logo! …"), not the greeting
// again. As a [rag.StreamAnswerer] it emits the reply
// word by word, so streaming works without a model.
//
// # Errors
//
// Both components fail only when their context is done, returning its
// error.
//
// # Concurrency
//
// Both are plain values, safe for concurrent use; their zero values use
// the default keyword lists and lexical.DefaultSynonyms.
package offline
