// Command chatserver is hybridrag's demo: a chat web page and a JSON API
// over the library's Pipeline and Searcher.
//
// Run it from the repository root:
//
//	go run ./examples/chatserver            # http://127.0.0.1:8080, this machine only
//	go run ./examples/chatserver -addr :9000 -testdata ./testdata   # every interface, port 9000
//
// With no environment it is fully offline: a memory store indexed at start
// from testdata/ (catalog.jsonl, faqs.jsonl, documents/, documents.jsonl),
// the hash embedder behind a query-embedding cache, the keyword classifier
// and the extractive answerer. It logs one line naming the components and
// how to switch:
//
//   - DATABASE_URL: PostgreSQL + pgvector; the schema is migrated on start
//     and the tenant is seeded from testdata when it is empty.
//   - OPENAI_API_KEY (with OPENAI_BASE_URL, OPENAI_MODEL, EMBEDDING_MODEL for
//     other servers and models): OpenAI chat (classifier with keyword
//     fallback, answerer, history summarizer, catalog assist, agentic mode)
//     and embeddings.
//   - OPENROUTER_API_KEY (OPENROUTER_MODEL_ANSWER): chat models through
//     OpenRouter; embeddings stay offline unless EMBEDDING_MODEL is set.
//   - -rerank off|keyword, or RERANK (the flag wins; default off): keyword
//     reranks every search, the chat's included, with rag/rerank.Keyword
//     (offline: fused score, content and title term
//     overlap; at most 5 hits scoring 0.5 or more, each with
//     scores.rerank). A bad RERANK value is a *rag.EnvError naming the
//     variable (exit status 2). The start-up line and /api/stats
//     (components.reranker) say which runs.
//
// # Answers a customer can trust
//
// Every hit the API returns (tools[].hits of a chat turn, the hits of
// /api/rag/search and /api/faq/search) carries "evidence": its calibrated
// relevance in [0, 1], whether it is relevant (relevance >= 0.60), the
// reason (covered, named, vector, combined, missing-pair, files-only,
// context-only, unknown-words, partial, no-evidence), the query concepts
// it covers and misses, and its lexical and calibrated vector evidence
// (vector, vector_z, background). A chat
// turn keeps only relevant hits (debug.considered counts what each search
// returned) and cites only those. When none is relevant the turn abstains:
// "abstained": true, "citations": [], confidence "none", and the answer
// says plainly that the store has nothing on the question; the page then
// lists no source. debug.follow_up says whether the message was taken as a
// follow-up of the history (only then does the history join the searches).
//
// # Endpoints
//
//	POST /api/chat            {message, history:[{role,content}], limit?, mode?: planned|agentic,
//	                           confirmation_id?}
//	                          JSON, or Server-Sent Events with "Accept: text/event-stream":
//	                          intent, tool_call, hits, token…, confirm?, then done (the JSON
//	                          response) or error;
//	                          reset (data {}) means "discard the tokens so far; the answer restarts"
//	                          (a model stream that failed part-way, before the fallback text);
//	                          the response: {answer, intent, plan, tools:[{tool, query, hits}],
//	                          citations, abstained, confidence, confidence_text, confirmation?, debug}
//	POST /api/rag/search      {query, limit?, kind?: catalog|faq|doc, mode?: hybrid|lexical|vector,
//	                           fusion?: weighted|rrf|relative|simple, context?,
//	                           filters?: {category?, manufacturer?, tag?, source?, metadata?: {key: value}},
//	                           chunk_filters?: {key: value}, document_ids?: [id],
//	                           include_context?: bool}
//	POST /api/faq/search      the same, kind faq; a search response says which store answered
//	                          ("store": memory|postgres), whether the vector leg ran ("vector_leg",
//	                          "pgvector") or why not ("fallback_reason"), and the reranker and
//	                          whether it reordered the hits ("reranker", "reranked", "rerank_error")
//	POST /api/catalog/assist  {name, description?, category?, manufacturer?, price?, tags?, files?}
//	                          suggestions for the empty fields; 501 without a chat model
//	PUT  /api/items/{id}      {name, description?, category?, manufacturer?, tags?, price?,
//	                          status?: active|inactive, metadata?, files?:[{name, text}]}
//	PUT  /api/faqs/{id}       {question, answer, category?, keywords?, priority?, status?}
//	PUT  /api/documents/{id}  {content, title?, source?, metadata?, status?, format?: text|markdown}
//	                          create (201) or replace (200) one record through the Indexer:
//	                          {kind, id, created, index:{chunks, embedded, skipped, unchanged}};
//	                          needs -token (see "Writing records")
//	DELETE /api/items/{id}, /api/faqs/{id}, /api/documents/{id}
//	                          remove the record and its chunks: {kind, id, deleted}; 404 when absent
//	GET  /api/stats           components (store: memory, postgres or "memory (fallback)"),
//	                          record counts with counts.chunks_by_source ({item, file, note,
//	                          question, answer, doc: {chunks, embedded}}), the embedding cache
//	                          (hits, misses, entries, oldest_age_seconds, newest_age_seconds),
//	                          reranker {name, available}, uptime, write_api (on with a token),
//	                          metadata_filter_keys,
//	                          actions: {tools, pending_confirmations, quotes_submitted},
//	                          startup_index: the start-up indexing run (embedded counts the
//	                          texts sent to the embedder, skipped the chunks that reused a
//	                          vector — an equal text's —, so embedded + skipped is the chunks
//	                          written, which counts.embedded holds)
//	GET  /healthz             200 {"status":"ok"} when the store answers
//	GET  /                    the chat page (embedded; no build step)
//
// The routes are ServeMux method patterns ("POST /api/chat"): a path
// asked with a method it has no route for is 405, with the path's methods
// in Allow (a GET route answers HEAD too), and a path with no route 404;
// under /api/ both are JSON errors (method_not_allowed, not_found), for
// the page and /healthz and /metrics the ServeMux's plain text.
//
// POST bodies must be sent with Content-Type: application/json; anything
// else is 415 unsupported_media_type (a form or text/plain post needs no
// CORS preflight, so any web page could otherwise make a visitor's
// browser post to the API).
//
// # Confirmations
//
// Agentic mode ("mode": "agentic"; it needs a chat model, so it is 501
// offline) offers the model one action besides the searches: the quote
// request for large volumes (internal/actions.NewQuoteTool: product,
// quantity, unit, contact, optional city and notes). It is never executed
// when the model calls it: the turn answers with the question and
// "confirmation": {id, tool, arguments, summary, expires_at} (the SSE
// stream sends the same object as a confirm event before done). The next
// message answers it with "confirmation_id": id — "sim" (or the page's
// Confirmar) submits the quote and the model gives the customer its
// protocol (COT-…); "não" (Cancelar) does not; anything else ("não, 500
// litros") is a correction: the model calls the tool again and the user is
// asked again. debug.decision says how the reply was
// read (confirm, reject, correct); debug.tool_calls[] have each call's
// status (pending_confirmation, rejected, ok...) and attempts (2: a failed
// search was retried once).
//
// The pending confirmation stays on the server, by ID, for at most 5
// minutes (llm.DefaultConfirmationTTL) and is used once. It is bound to
// the client it was given to (its rate-limit address, an IPv4 address or
// an IPv6 /64): another client naming the ID starts a new turn and leaves
// it pending. Each client keeps at most 10 pending (past that its own
// oldest goes), at most 1000 wait in all (then expired ones go first,
// then the oldest of the client holding the most), so one client flooding
// agentic turns cannot drop another user's confirmation. The client
// never sees its transcript (system prompt, conversation) and can send
// back only the ID, so it cannot rewrite the call. An unknown, used or
// expired ID runs the message as a new turn (debug.errors says so);
// confirmation_id without mode agentic is 400 invalid_field. Whoever holds
// the ID can answer it: it is random and sent only to the client that
// asked. This demo's submit logs the quote (not the contact) and keeps
// the last 200 in memory; /api/stats counts them
// (actions.quotes_submitted). The page shows Confirmar and Cancelar under
// the question and offers the agentic mode when a chat model is configured.
//
// # Filters
//
// The filters of a search (storage.Filter) restrict both legs and are
// ANDed; values compare as normalized text (case and accents ignored), and
// blank ones are ignored. category applies to items and FAQs,
// manufacturer and tag (any of the item's tags) to items, source to
// documents, metadata to items and documents. Metadata keys must be in
// the allowlist, -metadata-keys or METADATA_FILTER_KEYS (comma-separated;
// "none" allows none; default formulacao, ingrediente_ativo,
// classe_toxicologica, classe_ambiental, tema, publico), which the store
// gets too: another key is 400 metadata_key_not_allowed, naming the
// allowed ones; a filter the kind does not have (manufacturer on FAQs) or
// a value over 256 bytes is 400 invalid_filter. The response echoes the
// filters applied ("filters": [{field, key?, value}]).
//
// include_context adds "context": the hits returned formatted as a chat
// turn gives them to the model (rag.FormatContext: the preamble, the
// kind's section, "Pergunta do usuário: " and the query), to see what the
// answerer would read; a chat turn keeps only the relevant hits.
//
// document_ids (rag.Query.DocumentIDs) restrict a doc search to those
// documents, both legs, on any store (at most 100 non-empty IDs; a bad
// list, or document_ids on a catalog or FAQ search, is 400
// invalid_field); the response echoes them ("document_ids").
//
// chunk_filters (rag.Query.ChunkFilters) keep the chunks whose metadata
// has every key with its value, and the records having such a chunk; the
// Searcher applies them to both legs on any store, so they need no
// allowlist (an empty or over-long key or value is 400 invalid_field).
// Chunks carry metadata when an extractor wrote it: -extract legal (or
// DOCUMENT_EXTRACTOR=legal) runs rag/ingest/legal on every document
// indexed, the testdata's and those written through the write API, so
// that {"artigo":"5"} finds Art. 5º of a statute and its paragraphs,
// incisos and alíneas (paragrafo, inciso, alinea, tipo, marca_*). A
// statute is also chunked at its articles (the extractor is an
// ingest.Sectioner), so no chunk spans two articles; the
// document's own tipo_documento, numero_documento and ano_documento are
// metadata filters once allowed (-metadata-keys).
//
// Errors are JSON with a stable code: {"error":{"code":"rate_limited",
// "message":"...","retry_after":2}}. Codes: invalid_json,
// invalid_encoding (a body not valid in its declared charset),
// invalid_field, empty_message, message_too_long, history_too_long,
// empty_query, query_too_long, invalid_record, limit_exceeded (a record
// over a storage limit: tags, metadata keys, name length), invalid_filter,
// metadata_key_not_allowed (400), unauthorized (401),
// writes_disabled (403), not_found (404, a record the tenant does not
// hold, or no API route), method_not_allowed (405, with Allow),
// duplicate_document (409), body_too_large (413), unsupported_media_type
// (415, a body not JSON or in another charset), rate_limited (429, with
// Retry-After), internal (500), not_configured (501), upstream_error
// (502), canceled and store_unavailable (503; the latter with
// Retry-After), timeout (504).
//
// # Writing records
//
// PUT and DELETE on /api/items/{id}, /api/faqs/{id} and /api/documents/{id}
// write the server's tenant through the library's ingest.Indexer, the
// path that keeps chunks in step with their records: an update re-chunks
// the record and re-embeds only the chunks whose text changed (a record
// equal to the stored one is neither embedded nor written: "unchanged":
// true), a delete removes the record, its files and its chunks in one
// transaction. After each write the Searcher's vocabularies and
// calibration samples are refreshed (rag.Searcher.Refresh), so the next
// search sees the change. The writes of one record (and of documents of
// one content) wait for each other, writes of different records run
// concurrently, each bounded by -chat-timeout; bodies by -max-write-body (4 MiB). The ID is the rest of
// the path, slashes included (escape other reserved characters); an ID
// with ".", ".." or empty path segments cannot be addressed: the router
// redirects to the cleaned path.
//
// The write API is off unless a token is configured: without -token or
// CHAT_TOKEN every write is 403 writes_disabled, so an open demo cannot
// be written to. Bodies are strict JSON (unknown fields are 400
// invalid_json); an "id" in the body must equal the path's. A record the
// stores would refuse (no name, question, answer or content, a negative
// price, a NUL byte, an unknown status, a required text of control
// characters alone) is 400 invalid_record before anything is embedded,
// one over a record limit of the stores (storage.MaxTags,
// storage.MaxMetadataKeys, storage.MaxNameLength, ...) 400 limit_exceeded
// naming the limit; an ID with a control character (newline, tab) or a
// bidirectional formatting character (U+202E) is 400 invalid_field.
// Every JSON body is decided on its raw bytes: invalid UTF-8 is 400
// invalid_encoding naming the byte offset (never stored as U+FFFD),
// unless the Content-Type declares charset=iso-8859-1, latin1 or
// windows-1252, which is transcoded; another charset is 415; a document whose content
// equals another stored document's is 409 duplicate_document; deleting
// an ID the tenant does not hold is 404 not_found. A write whose embedding
// fails (the embedding API down, a broken vector) is 502 upstream_error
// and writes nothing: the stored record and its chunks stay as they were.
//
// Writing records with the store's raw storage.BatchWriter (Apply with
// records and no chunks) keeps the chunks of the old text:
// searches would still find the old words through the vector leg. Go
// through the Indexer, as this server does.
//
// # When the store is down
//
// At start, a PostgreSQL that cannot be reached (DATABASE_URL set, the
// connection refused or timing out) makes the server exit, unless
// -fallback-memory (or FALLBACK_MEMORY=1) is given: then it logs a
// warning in capitals, runs on a memory store seeded from the testdata
// (writes are lost at exit), and /api/stats and the start-up line say
// store "memory (fallback)" (search responses say memory). An invalid DSN
// or a failed migration of a reachable server still exits. Restart the
// server once PostgreSQL answers: it does not switch back by itself.
//
// A search that fails because the store cannot be reached (a refused or
// broken connection, PostgreSQL shutting down, or any error while the
// store does not answer a ping) is 503 store_unavailable with
// Retry-After: 5, as is a chat turn whose every search failed while the
// store does not answer. An SSE chat pings the store before the stream
// starts (503 then), and a store lost during the turn ends the stream with
// reset and an error event store_unavailable. Error texts of the store
// and the models (hosts, users, database names, URLs, SQL) are logged,
// never sent: debug.errors names the failed step ("catalog search
// failed"), model_calls[].error and tool_calls[].error say only that the
// call failed.
//
// # Logs
//
// The server logs text records (log/slog) to stderr at info level; -v adds
// one record per request and debug records. Every search, the chat's
// included, writes one "rag search" record (rag.SearcherOptions.Logger,
// kind, query, results, lexical_count,
// vector_count, embedding_used, fallback_reason, legs, fusion and the
// stage timings), a failed one a "rag search failed" warning; every search
// of a chat turn writes the audit record "rag tool payload" (tool,
// arguments, result count, a preview of what the model was given;
// rag.PipelineOptions.Logger). Confirmed quote requests are logged without
// their contact. The log holds queries and store errors (hosts, users,
// database names) but never the bearer token, API keys or the DSN's
// password. The searcher's tracer (package rag/trace) feeds the metrics
// below; a program attaches OpenTelemetry (module otelrag) with
// rag.SearcherOptions.Tracer, rag.PipelineOptions.Tracer and
// ingest.IndexerOptions.Tracer, beside other tracers with trace.NewMulti.
//
// # Metrics
//
// GET /metrics serves Prometheus metrics (prometheus/client_golang, a
// registry of the server's own; metrics.go): requests and latency per
// endpoint (the route pattern) and status code, search and per-leg
// latency by record kind, search fallbacks by reason, chat abstentions and
// answer fallbacks, query-embedding cache hits and misses, rate-limited
// requests, store errors, and the Go runtime and process collectors. It is
// not rate limited and, like /api/, needs the bearer token when one is
// set. No label holds user text.
//
// # Hardening
//
// Request bodies are limited (-max-body, 64 KiB); messages, history and
// queries have length limits; /api/ requests are rate limited per client
// with golang.org/x/time/rate (-rate, -burst), an IPv4 address or an IPv6
// /64 being one client. The limiter's table holds at most -rate-clients
// clients (10000, about 2.5 MB); clients whose bucket has refilled are
// swept, and while the table is still full new clients share one
// overflow bucket (clients already limited keep theirs: a flood from many
// addresses cannot reset them). /api/stats shows the table (rate_limiter).
//
// Behind a reverse proxy, -trust-proxy takes the client from
// X-Forwarded-For read from the right, the end the proxies append to (the
// left end is whatever the client sent): by default the right-most
// address, the one the proxy in front of the server appended.
// -trusted-hops N (TRUSTED_HOPS) takes the N-th from the right, for N
// proxies in a chain; -trusted-proxies CIDRs (TRUSTED_PROXIES, e.g.
// "10.0.0.0/8,192.0.2.7") reads the header only from a peer in those
// ranges and takes the right-most address outside them. In hops mode a
// request carrying fewer than N addresses did not come through the N
// proxies: its client is the peer. Hops mode cannot tell a client that
// reaches the port directly and writes N addresses itself, so
// -trust-proxy without -trusted-proxies warns at start-up. Either implies
// -trust-proxy; the flags win over the variables. X-Real-IP is ignored.
// Without -trust-proxy the client is the connection's peer; never use it
// on a server clients can reach directly.
//
// -token or CHAT_TOKEN requires "Authorization: Bearer <token>" on /api/
// (the page and /healthz stay open; the page asks for the token); CORS is
// off unless -cors-origin is set. The server sets
// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout; SSE streams
// move their write deadline forward per event with http.ResponseController
// and send keep-alive comments while a turn is slow (-heartbeat). A client
// that disconnects cancels its turn. Panics become a 500 JSON error with
// the stack in the log only. SIGINT and SIGTERM shut down gracefully,
// ending open streams.
package main
