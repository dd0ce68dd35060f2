package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
)

// Search kinds of /api/rag/search.
const (
	kindCatalog = "catalog"
	kindFAQ     = "faq"
	kindDoc     = "doc"
)

// handleChat answers POST /api/chat: JSON, or an SSE stream when the
// client accepts text/event-stream.
func (s *server) handleChat(w http.ResponseWriter, r *http.Request) {
	var body chatRequest
	if e := decodeJSON(r, &body); e != nil {
		writeError(w, e)
		return
	}
	req, agentic, e := s.validateChat(body)
	if e != nil {
		writeError(w, e)
		return
	}
	turn := chatTurn{req: req, agentic: agentic, client: s.clients.clientKey(r)}
	if id := strings.TrimSpace(body.ConfirmationID); id != "" {
		// Used once: a second reply with the same ID starts a new turn.
		// An unknown or expired ID does too, as the library does with an
		// expired confirmation, and so does another client's.
		turn.req.Confirmation = s.pending.take(turn.client, id)
		turn.staleConfirmation = turn.req.Confirmation == nil
	}
	if wantsSSE(r) {
		s.streamsServed.Add(1)
		s.streamChat(w, r, turn)
		return
	}
	s.chats.Add(1)
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ChatTimeout)
	defer cancel()
	resp, err := s.runChat(ctx, turn, nil)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client is gone
		}
		writeError(w, s.chatError(err))
		return
	}
	// The turn waits for the user: keep the confirmation (the same ID
	// again when the reply could not be read) for the next message.
	s.pending.put(turn.client, resp.Confirmation)
	s.logTurnErrors(resp)
	if s.turnStoreFailed(ctx, resp) {
		writeError(w, errStoreUnavailable())
		return
	}
	writeJSON(w, http.StatusOK, toChatResponse(resp, req.Message, s.be.searcher.Options().Fusion))
}

// chatTurn is a validated chat request.
type chatTurn struct {
	req     rag.ChatRequest
	agentic bool
	// staleConfirmation: confirmation_id named no pending confirmation
	// of this client (unknown, used, expired or another client's); the
	// turn runs without one.
	staleConfirmation bool
	// client is the client's rate-limit key (clientResolver.clientKey),
	// which its confirmations are bound to.
	client string
}

// staleConfirmationNote is the debug error of a turn whose
// confirmation_id named no pending confirmation.
const staleConfirmationNote = "confirmation: unknown, used or expired; the message started a new turn"

// runChat runs one turn, planned or agentic; emit nil means no streaming.
func (s *server) runChat(ctx context.Context, t chatTurn, emit func(rag.Event)) (resp *rag.ChatResponse, err error) {
	var agent *rag.Agent
	if t.agentic {
		if agent, err = s.be.agent(); err != nil {
			return nil, err
		}
	}
	switch {
	case t.agentic && emit != nil:
		resp, err = drain(agent.ChatStream(ctx, t.req), emit)
	case t.agentic:
		resp, err = agent.Chat(ctx, t.req)
	case emit != nil:
		resp, err = drain(s.be.pipeline.ChatStream(ctx, t.req), emit)
	default:
		resp, err = s.be.pipeline.Chat(ctx, t.req)
	}
	s.metrics.observeTurn(resp)
	if resp != nil && t.staleConfirmation {
		resp.Debug.Errors = append(resp.Debug.Errors, staleConfirmationNote)
	}
	return resp, err
}

// validateChat checks a chat request against the configured limits and
// reports whether the turn is agentic.
func (s *server) validateChat(b chatRequest) (rag.ChatRequest, bool, *apiError) {
	msg := strings.TrimSpace(b.Message)
	fail := func(e *apiError) (rag.ChatRequest, bool, *apiError) { return rag.ChatRequest{}, false, e }
	switch {
	case msg == "":
		return fail(errorf(http.StatusBadRequest, codeEmptyMessage, "message is empty"))
	case utf8.RuneCountInString(msg) > s.cfg.MaxMessageChars:
		return fail(errorf(http.StatusBadRequest, codeMessageTooLong, "message has more than %d characters", s.cfg.MaxMessageChars))
	case len(b.History) > s.cfg.MaxHistoryTurns:
		return fail(errorf(http.StatusBadRequest, codeHistoryTooLong, "history has more than %d messages", s.cfg.MaxHistoryTurns))
	case b.Limit < 0:
		return fail(errorf(http.StatusBadRequest, codeInvalidField, "limit must not be negative"))
	}
	var agentic bool
	switch strings.ToLower(strings.TrimSpace(b.Mode)) {
	case "", "planned":
	case "agentic":
		if s.be.chat == nil {
			return fail(errorf(http.StatusNotImplemented, codeNotConfigured,
				"agentic mode needs a chat model: start the server with OPENAI_API_KEY or OPENROUTER_API_KEY"))
		}
		agentic = true
	default:
		return fail(errorf(http.StatusBadRequest, codeInvalidField, "mode must be planned or agentic"))
	}
	switch id := strings.TrimSpace(b.ConfirmationID); {
	case id == "":
	case !agentic:
		return fail(errorf(http.StatusBadRequest, codeInvalidField, "confirmation_id needs mode \"agentic\""))
	case len(id) > maxConfirmationIDLen:
		return fail(errorf(http.StatusBadRequest, codeInvalidField, "confirmation_id has more than %d bytes", maxConfirmationIDLen))
	}
	req := rag.ChatRequest{Message: msg, Limit: b.Limit, History: make([]rag.Turn, 0, len(b.History))}
	for i, t := range b.History {
		role := llm.Role(strings.ToLower(strings.TrimSpace(t.Role)))
		if role != llm.RoleUser && role != llm.RoleAssistant {
			return fail(errorf(http.StatusBadRequest, codeInvalidField, "history[%d].role must be \"user\" or \"assistant\"", i))
		}
		if utf8.RuneCountInString(t.Content) > s.cfg.MaxTurnChars {
			return fail(errorf(http.StatusBadRequest, codeHistoryTooLong, "history[%d].content has more than %d characters", i, s.cfg.MaxTurnChars))
		}
		req.History = append(req.History, rag.Turn{Role: role, Content: t.Content})
	}
	return req, agentic, nil
}

// chatError maps a pipeline error to an API error; unexpected errors are
// logged and reported without detail.
func (s *server) chatError(err error) *apiError {
	switch {
	case errors.Is(err, rag.ErrEmptyMessage):
		return errorf(http.StatusBadRequest, codeEmptyMessage, "message is empty")
	case errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusGatewayTimeout, codeTimeout, "the answer took longer than %s", s.cfg.ChatTimeout)
	case errors.Is(err, context.Canceled):
		return errorf(http.StatusServiceUnavailable, codeCanceled, "the request was cancelled (server shutting down?)")
	case errors.Is(err, rag.ErrNoAnswer):
		s.log.Warn("chat: no answer", "error", err)
		return errorf(http.StatusBadGateway, codeUpstream, "the model did not answer; try again")
	}
	s.log.Error("chat failed", "error", err)
	return errorf(http.StatusInternalServerError, codeInternal, "internal error")
}

// wantsSSE reports whether the client asked for an event stream.
func wantsSSE(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(v), "text/event-stream") {
			return true
		}
	}
	return false
}

// handleSearch answers POST /api/rag/search.
func (s *server) handleSearch(w http.ResponseWriter, r *http.Request) {
	s.search(w, r, "")
}

// handleFAQSearch answers POST /api/faq/search (kind faq).
func (s *server) handleFAQSearch(w http.ResponseWriter, r *http.Request) {
	s.search(w, r, kindFAQ)
}

func (s *server) search(w http.ResponseWriter, r *http.Request, forceKind string) {
	var body searchRequest
	if e := decodeJSON(r, &body); e != nil {
		writeError(w, e)
		return
	}
	kind := strings.ToLower(strings.TrimSpace(body.Kind))
	if forceKind != "" {
		if kind != "" && kind != forceKind {
			writeError(w, errorf(http.StatusBadRequest, codeInvalidField, "kind must be %q on this endpoint", forceKind))
			return
		}
		kind = forceKind
	}
	q, e := s.searchQuery(body, &kind)
	if e != nil {
		writeError(w, e)
		return
	}
	s.searches.Add(1)
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.SearchTimeout)
	defer cancel()
	var (
		resp                 searchResponse
		err                  error
		vectorErr, rerankErr error
	)
	switch kind {
	case kindFAQ:
		var res *rag.Result[storage.FAQ]
		if res, err = s.be.searcher.SearchFAQs(ctx, q); err == nil {
			resp, vectorErr, rerankErr = toSearchResponse(kind, res, faqFields), res.VectorError, res.RerankError
			if body.IncludeContext {
				resp.Context = rag.FormatContext(q.Text, res.Hits)
			}
		}
	case kindDoc:
		var res *rag.Result[storage.Document]
		if res, err = s.be.searcher.SearchDocuments(ctx, q); err == nil {
			resp, vectorErr, rerankErr = toSearchResponse(kind, res, docFields), res.VectorError, res.RerankError
			if body.IncludeContext {
				resp.Context = rag.FormatContext(q.Text, res.Hits)
			}
		}
	default:
		var res *rag.Result[storage.CatalogItem]
		if res, err = s.be.searcher.SearchCatalog(ctx, q); err == nil {
			resp, vectorErr, rerankErr = toSearchResponse(kind, res, itemFields), res.VectorError, res.RerankError
			if body.IncludeContext {
				resp.Context = rag.FormatContext(q.Text, res.Hits)
			}
		}
	}
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		writeError(w, s.searchError(ctx, err))
		return
	}
	for _, f := range q.Filters {
		resp.Filters = append(resp.Filters, filterJSON{Field: string(f.Field), Key: f.Key, Value: f.Value})
	}
	for _, f := range q.ChunkFilters {
		resp.ChunkFilters = append(resp.ChunkFilters, filterJSON{Field: "chunk", Key: f.Key, Value: f.Value})
	}
	resp.DocumentIDs = q.DocumentIDs
	resp.Store, resp.Reranker = s.be.storeKind, s.be.info.Reranker
	resp.PGVector = resp.VectorLeg && resp.Store == storePostgres
	if resp.RerankError != "" {
		s.log.Warn("search: rerank failed; fused order kept", "kind", kind, "error", rerankErr)
	}
	if vectorErr != nil {
		s.log.Warn("search: vector leg failed; lexical results only", "kind", kind, "fallback", resp.FallbackReason, "error", vectorErr)
	}
	writeJSON(w, http.StatusOK, resp)
}

// searchQuery validates a search request and builds the library query;
// kind is normalized in place.
func (s *server) searchQuery(b searchRequest, kind *string) (rag.Query, *apiError) {
	text := strings.TrimSpace(b.Query)
	switch {
	case text == "":
		return rag.Query{}, errorf(http.StatusBadRequest, codeEmptyQuery, "query is empty")
	case utf8.RuneCountInString(text) > s.cfg.MaxQueryChars:
		return rag.Query{}, errorf(http.StatusBadRequest, codeQueryTooLong, "query has more than %d characters", s.cfg.MaxQueryChars)
	case utf8.RuneCountInString(b.Context) > s.cfg.MaxQueryChars:
		return rag.Query{}, errorf(http.StatusBadRequest, codeQueryTooLong, "context has more than %d characters", s.cfg.MaxQueryChars)
	case b.Limit < 0:
		return rag.Query{}, errorf(http.StatusBadRequest, codeInvalidField, "limit must not be negative")
	}
	q := rag.Query{Text: text, Context: b.Context, Limit: b.Limit}
	switch *kind {
	case "", kindCatalog:
		*kind = kindCatalog
	case kindFAQ, "faqs":
		*kind = kindFAQ
	case kindDoc, "docs", "document", "documents":
		*kind = kindDoc
	default:
		return q, errorf(http.StatusBadRequest, codeInvalidField, "kind must be catalog, faq or doc")
	}
	filters, e := s.searchFilters(*kind, b.Filters)
	if e != nil {
		return q, e
	}
	q.Filters, q.ChunkFilters, q.DocumentIDs = filters, chunkFilters(b.ChunkFilters), b.DocumentIDs
	switch strings.ToLower(strings.TrimSpace(b.Mode)) {
	case "", string(rag.LegsHybrid):
		q.Legs = rag.LegsHybrid
	case string(rag.LegsLexical):
		q.Legs = rag.LegsLexical
	case string(rag.LegsVector):
		q.Legs = rag.LegsVector
	default:
		return q, errorf(http.StatusBadRequest, codeInvalidField, "mode must be hybrid, lexical or vector")
	}
	switch f := merge.Method(strings.ToLower(strings.TrimSpace(b.Fusion))); f {
	case "":
	case merge.MethodSimple, merge.MethodWeighted, merge.MethodRRF, merge.MethodRelative:
		q.Fusion = f
	default:
		return q, errorf(http.StatusBadRequest, codeInvalidField, "fusion must be weighted, rrf, relative or simple")
	}
	return q, nil
}

// searchError maps a search error to an API error: a store that cannot
// be reached is 503 store_unavailable; the store's error text (hosts,
// users, SQL) goes to the log only.
func (s *server) searchError(ctx context.Context, err error) *apiError {
	switch {
	case errors.Is(err, rag.ErrEmptyQuery):
		return errorf(http.StatusBadRequest, codeEmptyQuery, "query is empty")
	case errors.Is(err, storage.ErrInvalidFilter):
		// searchFilters checks what the store checks; this is a safety net.
		return errorf(http.StatusBadRequest, codeInvalidFilter, "%s", recordReason(err))
	case errors.Is(err, rag.ErrInvalidQuery):
		return errorf(http.StatusBadRequest, codeInvalidField, "%s", strings.TrimPrefix(err.Error(), "rag: "))
	case errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusGatewayTimeout, codeTimeout, "the search took longer than %s", s.cfg.SearchTimeout)
	case s.storeDown(ctx, err):
		s.log.Warn("search: store unavailable", "error", err)
		return errStoreUnavailable()
	}
	s.log.Error("search failed", "error", err)
	return errorf(http.StatusInternalServerError, codeInternal, "internal error")
}

// statsResponse is the body of GET /api/stats.
type statsResponse struct {
	Components    components    `json:"components"`
	Counts        *countsStats  `json:"counts"`
	CountsError   string        `json:"counts_error,omitempty"`
	Cache         cacheStats    `json:"embedding_cache"`
	Reranker      rerankerStats `json:"reranker"`
	Index         indexInfo     `json:"startup_index"`
	Requests      requestStats  `json:"requests"`
	StartedAt     time.Time     `json:"started_at"`
	UptimeSeconds float64       `json:"uptime_seconds"`
	RateLimit     string        `json:"rate_limit"`
	// RateLimiter is the limiter's client table; absent without a limit.
	RateLimiter *limiterStats `json:"rate_limiter,omitempty"`
	Auth        bool          `json:"auth"`
	// WriteAPI reports whether PUT and DELETE on /api/items/{id},
	// /api/faqs/{id} and /api/documents/{id} are on (they need a token).
	WriteAPI bool `json:"write_api"`
	// MetadataKeys are the metadata keys search filters may name.
	MetadataKeys []string `json:"metadata_filter_keys"`
	// Actions are the agentic mode's tools with a side effect, the
	// confirmations waiting and the quotes submitted.
	Actions actionsStats `json:"actions"`
}

type countsStats struct {
	Items     int `json:"items"`
	FAQs      int `json:"faqs"`
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	Embedded  int `json:"embedded"`
	// ChunksBySource counts the chunks by what they were cut from
	// (storage.ChunkSource: item, file, note, question, answer, doc),
	// each with how many have an embedding; absent when the store could
	// not list them.
	ChunksBySource map[string]sourceCounts `json:"chunks_by_source,omitempty"`
}

// sourceCounts are the chunks of one source.
type sourceCounts struct {
	Chunks   int `json:"chunks"`
	Embedded int `json:"embedded"`
}

type cacheStats struct {
	Hits      uint64  `json:"hits"`
	Misses    uint64  `json:"misses"`
	HitRate   float64 `json:"hit_rate"`
	Entries   int     `json:"entries"`
	Evictions uint64  `json:"evictions"`
	// OldestAgeSeconds and NewestAgeSeconds are the ages of the oldest
	// and newest entries (0 when empty).
	OldestAgeSeconds float64 `json:"oldest_age_seconds"`
	NewestAgeSeconds float64 `json:"newest_age_seconds"`
}

// rerankerStats says which reranker runs: Name is off or keyword,
// Available that a reranker is wired into the searches (the keyword
// reranker needs no service, so it is available whenever it is on).
type rerankerStats struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
}

type requestStats struct {
	Total int64 `json:"total"`
	// ServerErrors counts 5xx responses but 501 (not configured).
	ServerErrors int64 `json:"server_errors"`
	RateLimited  int64 `json:"rate_limited"`
	Chats        int64 `json:"chats"`
	Streams      int64 `json:"streams"`
	Searches     int64 `json:"searches"`
	// Writes counts requests of the write API (PUT and DELETE).
	Writes int64 `json:"writes"`
}

// handleStats answers GET /api/stats.
func (s *server) handleStats(w http.ResponseWriter, r *http.Request) {
	resp := statsResponse{
		Components: s.be.info,
		Index:      s.be.index,
		Requests: requestStats{Total: s.requests.Load(), ServerErrors: s.serverErrors.Load(), RateLimited: s.rateLimited.Load(),
			Chats: s.chats.Load(), Streams: s.streamsServed.Load(), Searches: s.searches.Load(), Writes: s.writes.Load()},
		StartedAt:     s.started.UTC().Truncate(time.Second),
		UptimeSeconds: time.Since(s.started).Round(time.Millisecond).Seconds(),
		RateLimit:     "off",
		Auth:          s.cfg.Token != "",
		WriteAPI:      s.cfg.Token != "",
		MetadataKeys:  nonNil(s.cfg.MetadataKeys),
	}
	resp.Actions = actionsStats{Tools: []string{}, PendingConfirmations: s.pending.pending()}
	for _, a := range s.be.agentic.Actions {
		resp.Actions.Tools = append(resp.Actions.Tools, a.Name)
	}
	if s.be.quotes != nil {
		resp.Actions.QuotesSubmitted = s.be.quotes.submitted.Load()
	}
	if s.limiter != nil {
		resp.RateLimit = fmt.Sprintf("%g/s per client, burst %d", s.cfg.Rate, s.cfg.Burst)
		st := s.limiter.stats()
		resp.RateLimiter = &st
	}
	if s.be.cache != nil {
		st := s.be.cache.Stats()
		resp.Cache = cacheStats{Hits: st.Hits, Misses: st.Misses, HitRate: st.HitRate(), Entries: st.Entries, Evictions: st.Evictions,
			OldestAgeSeconds: st.OldestAge.Round(time.Millisecond).Seconds(), NewestAgeSeconds: st.NewestAge.Round(time.Millisecond).Seconds()}
	}
	resp.Reranker = rerankerStats{Name: s.be.info.Reranker, Available: s.be.info.Reranker != "" && s.be.info.Reranker != string(rerankOff)}
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if c, err := s.be.store.Counts(ctx); err != nil {
		s.log.Warn("stats: counts failed", "error", err)
		resp.CountsError = "the store could not count its records"
	} else {
		resp.Counts = &countsStats{Items: c.Items, FAQs: c.FAQs, Documents: c.Documents, Chunks: c.Chunks, Embedded: c.Embedded}
		if by, err := chunksBySource(ctx, s.be.store); err != nil {
			s.log.Warn("stats: chunk counts by source failed", "error", err)
		} else {
			resp.Counts.ChunksBySource = by
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// chunksBySource counts the store's chunks by source, from the chunk
// references the Indexer compares (no text, no vectors): one listing per
// record kind, so O(chunks) per call.
func chunksBySource(ctx context.Context, st store) (map[string]sourceCounts, error) {
	out := map[string]sourceCounts{}
	for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		refs, err := st.ChunkRefs(ctx, kind, nil)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			c := out[string(r.Source)]
			c.Chunks++
			if r.HasEmbedding {
				c.Embedded++
			}
			out[string(r.Source)] = c
		}
	}
	return out, nil
}

// handleHealth answers GET /healthz: 200 when the store answers.
func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if s.be.ping != nil {
		ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
		defer cancel()
		if err := s.be.ping(ctx); err != nil {
			s.log.Warn("health: store unreachable", "error", err)
			writeError(w, errorf(http.StatusServiceUnavailable, codeStoreUnavailable, "the store does not answer"))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "store": s.be.info.Store})
}

// drain passes every event of a chat stream to emit and returns the done
// event's response or the stream's error.
func drain(events iter.Seq2[rag.Event, error], emit func(rag.Event)) (*rag.ChatResponse, error) {
	var resp *rag.ChatResponse
	for e, err := range events {
		emit(e)
		if err != nil {
			return nil, err
		}
		if e.Kind == rag.EventDone {
			resp = e.Response
		}
	}
	return resp, nil
}
