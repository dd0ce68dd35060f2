// Package rag is the product layer of hybridrag: the Searcher (hybrid
// search over catalog items, FAQs and documents), the Indexer (chunking,
// hashing, batched embedding and idempotent, atomic writes) and, built on
// them, the chat pipeline.
//
// # Searching
//
// A Searcher runs two legs concurrently (seed 000 §4):
//
//   - lexical: the query is tokenized (stopwords dropped, at most 8 tokens)
//     and expanded with the synonym table ("videira" adds "uva"); the store
//     returns active records containing any term, ranked by terms matched;
//     in enhanced mode every candidate is scored with lexicalScore (field
//     weights, culture/treatment bonuses) and re-sorted;
//   - vector: the query is embedded (bounded by EmbedTimeout, 2 s by
//     default), the store returns the nearest chunks within the threshold
//     (distance <#> <= -0.5), and chunks are aggregated per owner with a
//     snippet.
//
// Before both legs, the query is checked against the kind's vocabulary
// (built from the store's records on the first search of each kind, or
// given as SearcherOptions.Vocabularies): a misspelled word no indexed word
// starts with is corrected to the closest frequent indexed word
// ("insetisida soja" → "inseticida soja"; Result.Query.Corrections lists
// the changes, and the word as typed is still searched), and each lexical
// term is weighted by its IDF, so rare words ("azoxistrobina") outweigh
// common ones ("produto", "soja"). RefreshVocabularies rebuilds the
// vocabularies after large catalog changes; NoTypoCorrection, NoIDF and
// NoVocabulary turn this off. On the project's evaluation sets this lifted
// AGROFIT typo queries from nDCG@10 0.46 to 0.93 (BENCHMARKS.md).
//
// The lists are fused by the query's method: simple (vector first, then
// lexical), weighted (the seeds' computeCombinedScore), RRF or relative
// score; an optional Reranker reorders the head. Every hit carries its
// evidence (lexical Signals, vector distance) and a typed explanation of its
// score.
//
// Any failure of the vector leg — no embedder, an embedder error or
// timeout, a store error — yields the lexical results with
// Result.FallbackReason set to "embedding-disabled",
// "embedding-generation-failed" or "vector-query-error"; it is never the
// search's error. An empty query is ErrEmptyQuery; an impossible setting is
// ErrInvalidQuery; limits are clamped, over-long text truncated and invalid
// UTF-8 repaired.
//
// # Evidence
//
// Every hit carries an Evidence: a calibrated relevance in [0, 1] and a
// typed decision (Relevant, Reason). It does not change the ranking; it
// says whether the hit answers the query at all. Lexical evidence is the
// IDF-weighted share of the query's content concepts the record holds
// (stopwords and request words such as "vendem" or "quanto custa" are not
// content; a synonym and the words it spans are one concept); vector
// evidence compares the hit's similarity with the query's similarity to a
// fixed sample of the store's own chunks (median and robust spread), so it
// means the same for the hash embedder, whose relevant chunks sit near
// 0.3, and for a semantic model, whose relevant chunks sit near 0.8. The
// two are fused as 1 − (1 − lexical)(1 − vector); a query naming a culture
// and a treatment caps records lacking the pair. The background sample is
// drawn on the first search of each kind (RecordLister and ChunkReader
// stores; memory and Postgres give the same sample) and refreshed with
// RefreshVocabularies; EvidenceOptions holds the knobs.
//
// The Pipeline builds on it: each search keeps its relevant hits only, in
// evidence order (FAQ priority breaks ties), drops those far below the
// search's best (PipelineOptions.RelativeCut) and fits the retrieved
// sections into a 2,000-token budget (ContextTokens). The confidence level
// is the seed's (0.85 / 0.70 / 0.60) over the mean relevance of what is
// cited; level none means nothing relevant was found, and the turn
// abstains: ChatResponse.Abstained is set, no source is cited, and the
// Answerer is told (AnswerRequest.Abstained) to say the store has nothing
// on it. Recent turns join the searches only when DetectFollowUp (or
// PipelineOptions.FollowUp) takes the message for a follow-up.
//
// The offline components need no model: KeywordClassifier (keyword
// lists, definitional questions count as support) and ExtractiveAnswerer,
// which leads with the fact asked, quoted from the hits it is given — the
// leaflet row of the crop asked (leaflet tables, crop lines and "Dose: …"
// sentences are read), a "Label: value" line, the FAQ sentence, the best
// sentences of a document's Markdown section — in the question's language,
// without Markdown, and cites only what it quoted (Answer.Cited); when the
// turn abstains it says the store has nothing on it (AbstainAnswer).
//
// # Indexing
//
// An Indexer turns items (one chunk for the item's own fields, recursive
// chunks for each attached file), FAQs (the question, then question and
// answer) and documents (structural chunks keeping the heading path) into
// chunks, hashes them with SHA-256, embeds only new text in batches (16
// texts, ~200k tokens, bounded concurrency, retries on retryable errors),
// and writes each group of owners with their chunks in one transaction.
// Re-indexing unchanged content makes no embedding call and no write.
//
// # Chat on models
//
// The Pipeline's Classifier, Summarizer and Answerer have implementations on
// the llm.ChatModel port: LLMClassifier (structured output {intent,
// confidence, reason} at temperature 0, a fallback model, optionally the
// offline KeywordClassifier last), LLMSummarizer ({summary, catalog_query})
// and LLMAnswerer (system prompt, history as messages, the consolidated
// context; streaming; an empty answer is an error so the fallback message
// applies). Their prompts are text/template files embedded from prompts/,
// in pt-BR by default or English (Language), pinned by golden tests.
//
// Pipeline.ChatAgentic is the agentic mode (seed 003 §6): the model gets
// searchCatalog (with category, manufacturer and tag filters mapped to
// storage.Filter, never SQL), searchFaqs and searchDocuments as tools, each
// returning the seeds' pt-BR payload, and loops through llm.RunTools for at
// most 5 model calls; past that the turn ends with the fallback message or,
// with NoFallback, an error wrapping ErrNoAnswer and
// *llm.MaxIterationsExceededError. ChatAgenticStream emits the same events
// as ChatStream.
//
// Assist suggests the missing description, category, price and tags of a
// catalog item (seed 000 §3.4), validating each suggestion (price range,
// known categories, tags) and never overwriting a filled field.
//
// # Configuration
//
// Config gathers every knob, with the seeds' defaults (DefaultConfig).
// ConfigFromEnv reads the seeds' variable names through the getenv it is
// given — the library never reads the environment itself — and reports
// every invalid value as an *EnvError naming the variable. Config maps to
// SearcherOptions, PipelineOptions, IndexerOptions and the LLM components'
// options; API keys are Secret values that never print, log or marshal.
//
// # Concurrency
//
// Searcher, Indexer, Pipeline and the LLM components are safe for
// concurrent use (the LLM components when their models are). They never
// log unless given a *slog.Logger; timings and counts are returned as data.
package rag
