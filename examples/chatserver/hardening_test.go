package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hybridrag/hybridrag/llm/llmtest"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestRateLimitSpoofedForwardedFor: with -trust-proxy a client choosing
// the left end of X-Forwarded-For (every request another address) is
// still limited on the address its proxy appended (or, straight to the
// server, on the right-most one), not given a fresh bucket each time.
func TestRateLimitSpoofedForwardedFor(t *testing.T) {
	tests := []struct {
		name, remote string
		xff          func(i int) string
	}{
		{"straight to the server", "127.0.0.1:5000", func(i int) string { return fmt.Sprintf("198.51.100.%d, 127.0.0.1", i) }},
		{"behind one proxy", "10.0.0.2:5000", func(i int) string { return fmt.Sprintf("198.51.100.%d, 203.0.113.7", i) }},
		{"garbage left entries", "10.0.0.2:5000", func(i int) string { return fmt.Sprintf("x%d, 203.0.113.7", i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestServer(t, func(c *config) { c.Rate, c.Burst, c.TrustProxy = 0.5, 2, true }, nil).routes()
			var ok, limited int
			for i := range 8 {
				r := newRequest(t, "POST", "/api/rag/search", `{"query":"adubo","mode":"lexical"}`)
				r.RemoteAddr = tt.remote
				r.Header.Set("X-Forwarded-For", tt.xff(i))
				switch rec := serve(h, r); rec.Code {
				case http.StatusOK:
					ok++
				case http.StatusTooManyRequests:
					limited++
				default:
					t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
				}
			}
			if ok != 2 || limited != 6 {
				t.Errorf("%d requests passed and %d were limited, want the burst of 2 and 6 limited", ok, limited)
			}
		})
	}
}

// TestRateLimitClientTableBounded: many clients (here distinct peers)
// never grow the limiter's table past -rate-clients; once it is full, new
// clients share one overflow bucket, while clients already in the table
// keep theirs.
func TestRateLimitClientTableBounded(t *testing.T) {
	const maxClients = 16
	s := newTestServer(t, func(c *config) { c.Rate, c.Burst, c.RateClients = 0.001, 2, maxClients }, nil)
	h := s.routes()
	send := func(remote string) int {
		r := newRequest(t, "GET", "/api/stats", "")
		r.RemoteAddr = remote
		return serve(h, r).Code
	}
	// The first maxClients clients fill the table.
	for i := range maxClients {
		if code := send(fmt.Sprintf("198.51.100.%d:1000", i)); code != 200 {
			t.Fatalf("client %d: status %d", i, code)
		}
	}
	// A thousand more: the overflow bucket lets its burst through, then
	// limits them all as one client.
	var ok int
	for i := range 1000 {
		if send(fmt.Sprintf("203.0.%d.%d:1000", i/250, i%250)) == 200 {
			ok++
		}
	}
	if ok != 2 {
		t.Errorf("%d new clients passed once the table was full, want the overflow burst of 2", ok)
	}
	st := s.limiter.stats()
	if st.Clients > maxClients || st.Overflowed != 1000 {
		t.Errorf("limiter %+v: want at most %d clients and 1000 overflowed requests", st, maxClients)
	}
	// A client of the table still has its own bucket.
	if code := send("198.51.100.0:1001"); code != 200 {
		t.Errorf("known client after the flood: status %d, want 200 (its second token)", code)
	}
	// IPv6: one /64 is one client.
	before := s.limiter.stats()
	for i := range 50 {
		send(fmt.Sprintf("[2001:db8:0:1::%x]:1000", i+1))
	}
	if after := s.limiter.stats(); after.Overflowed-before.Overflowed != 50 || after.Clients > maxClients {
		t.Errorf("limiter %+v after 50 addresses of one /64", after)
	}
}

func TestLimiterSweepsRefilledClients(t *testing.T) {
	l := newIPLimiter(10, 2, 4)
	now := l.now()
	l.now = func() time.Time { return now }
	for i := range 4 {
		if ok, _ := l.allow(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})); !ok {
			t.Fatalf("client %d refused", i)
		}
	}
	if ok, _ := l.allow(netip.MustParseAddr("192.0.2.200")); !ok || l.stats().Overflowed != 1 {
		t.Fatalf("fifth client: ok %v, stats %+v; want it in the overflow bucket", ok, l.stats())
	}
	// After the refill time (burst/rate = 0.2 s) every bucket is full
	// again: the next new client's sweep makes room.
	now = now.Add(time.Second)
	if ok, _ := l.allow(netip.MustParseAddr("192.0.2.201")); !ok {
		t.Fatal("client refused after the refill")
	}
	if st := l.stats(); st.Clients != 1 || st.Overflowed != 1 {
		t.Errorf("stats after the sweep %+v, want the new client alone in the table", st)
	}
}

// errConnRefused is a store error as pgx reports a refused connection:
// it names the user, database, host and port.
var errConnRefused = fmt.Errorf("postgres: search items: failed to connect to `user=hr_admin database=shop_prod_db`: %w",
	&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 5432}, Err: syscall.ECONNREFUSED})

// infraDetails are strings of the stores' errors that must never reach a
// client.
var infraDetails = []string{"hr_admin", "shop_prod_db", "pw-s3cret", "10.9.8.7", "127.0.0.1", "5432", "SQLSTATE", "dial tcp", "user="}

// flakyStore is a store whose searches fail with err: all of them while
// down is set, and always those of the kinds in fail.
type flakyStore struct {
	store
	err  error
	down atomic.Bool
	fail map[storage.OwnerKind]bool
}

func (f *flakyStore) check(k storage.OwnerKind) error {
	if f.down.Load() || f.fail[k] {
		return f.err
	}
	return nil
}

// flakyRecords fails the searches and record reads of one kind when check
// says so; listings (vocabularies, calibration) still work.
type flakyRecords[T any] struct {
	storage.RecordStore[T]
	check func() error
}

func (r flakyRecords[T]) Search(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return r.RecordStore.Search(ctx, q)
}

func (r flakyRecords[T]) GetMany(ctx context.Context, ids []string) ([]T, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return r.RecordStore.GetMany(ctx, ids)
}

// flakyDocs are flakyRecords of documents with the store's ByHash.
type flakyDocs struct {
	flakyRecords[storage.Document]
	hash storage.DocumentStore
}

func (d flakyDocs) ByHash(ctx context.Context, h string) (storage.Document, error) {
	return d.hash.ByHash(ctx, h)
}

func (f *flakyStore) Items() storage.RecordStore[storage.CatalogItem] {
	return flakyRecords[storage.CatalogItem]{f.store.Items(), func() error { return f.check(storage.KindItem) }}
}

func (f *flakyStore) FAQs() storage.RecordStore[storage.FAQ] {
	return flakyRecords[storage.FAQ]{f.store.FAQs(), func() error { return f.check(storage.KindFAQ) }}
}

func (f *flakyStore) Documents() storage.DocumentStore {
	d := f.store.Documents()
	return flakyDocs{flakyRecords[storage.Document]{d, func() error { return f.check(storage.KindDocument) }}, d}
}

func (f *flakyStore) SearchChunks(ctx context.Context, q storage.VectorQuery) ([]storage.ChunkMatch, error) {
	if err := f.check(q.Kind); err != nil {
		return nil, err
	}
	return f.store.SearchChunks(ctx, q)
}

// outageServer returns a server over a copy of the shared backend whose
// store is st (with ping), searched by its own searcher and the offline
// pipeline with classifier c (nil: keyword). The server logs to the
// returned buffer.
func outageServer(t *testing.T, st store, ping func(context.Context) error, c rag.Classifier) (http.Handler, *syncBuffer) {
	t.Helper()
	be := *sharedBackend(t)
	be.store, be.ping = st, ping
	be.searcher = rag.NewSearcher(st, be.cache, rag.SearcherOptions{})
	if c == nil {
		c = offline.KeywordClassifier{}
	}
	p, err := rag.NewPipeline(be.searcher, c, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	be.pipeline = p
	logs := &syncBuffer{}
	s := newServerWith(testConfig(t), slog.New(slog.NewTextHandler(logs, nil)), &be)
	t.Cleanup(s.stopStreams)
	return s.routes(), logs
}

// wantStoreUnavailable checks a 503 store_unavailable with Retry-After
// and no infrastructure detail.
func wantStoreUnavailable(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	wantError(t, rec, http.StatusServiceUnavailable, codeStoreUnavailable)
	if n, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After = %q, want a number of seconds", rec.Header().Get("Retry-After"))
	}
	wantNoInfra(t, rec.Body.Bytes())
}

func wantNoInfra(t *testing.T, body []byte) {
	t.Helper()
	for _, s := range infraDetails {
		if bytes.Contains(body, []byte(s)) {
			t.Errorf("the response shows %q: %s", s, body)
		}
	}
}

// closedPortStore is a real PostgreSQL store, tenant "outage", whose pool
// points at a closed port (127.0.0.1:1) with a DSN holding secrets; the
// pool connects lazily and is closed with the test.
func closedPortStore(t *testing.T) (*postgres.DB, *postgres.Store) {
	t.Helper()
	pcfg, err := pgxpool.ParseConfig("postgres://hr_admin:pw-s3cret@127.0.0.1:1/shop_prod_db?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	postgres.ConfigurePool(pcfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg) // connects lazily
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := postgres.New(pool, postgres.Options{Dimensions: sharedBackend(t).info.Dimensions})
	st, err := db.Tenant("outage")
	if err != nil {
		t.Fatal(err)
	}
	return db, st
}

// TestStoreOutagePostgres runs the API over a real PostgreSQL store whose
// pool points at a closed port (127.0.0.1:1): every search and chat turn
// is a 503 store_unavailable with Retry-After, and the DSN's user,
// database, host and port reach the log only.
func TestStoreOutagePostgres(t *testing.T) {
	db, st := closedPortStore(t)
	h, logs := outageServer(t, st, db.Ping, nil)

	tests := []struct {
		name, path, body string
		sse              bool
	}{
		{"catalog search", "/api/rag/search", `{"query":"fungicida para videira"}`, false},
		{"document search", "/api/rag/search", `{"query":"ferrugem","kind":"doc","mode":"lexical"}`, false},
		{"faq search", "/api/faq/search", `{"query":"prazo de entrega"}`, false},
		{"chat", "/api/chat", `{"message":"tem fungicida para videira?"}`, false},
		{"chat stream", "/api/chat", `{"message":"qual o prazo de entrega?"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.sse {
				hdr = []string{"Accept", "text/event-stream"}
			}
			wantStoreUnavailable(t, do(t, h, "POST", tt.path, tt.body, hdr...))
		})
	}
	if !strings.Contains(logs.String(), "127.0.0.1") {
		t.Errorf("the log lacks the store's error:\n%s", logs.String())
	}
	// Small talk searches nothing: it does not need the store.
	if rec := do(t, h, "POST", "/api/chat", `{"message":"obrigado!"}`); rec.Code != 200 {
		t.Errorf("small talk during the outage: %d %s", rec.Code, rec.Body.String())
	}
}

// downOnClassify takes the store down when the turn is classified, after
// the stream has started.
type downOnClassify struct{ down *atomic.Bool }

func (d downOnClassify) Classify(ctx context.Context, req rag.ClassifyRequest) (rag.Classification, error) {
	d.down.Store(true)
	return offline.KeywordClassifier{}.Classify(ctx, req)
}

// TestStoreOutageDuringTurn: the store goes down while a turn runs (after
// an SSE stream has begun): every search fails, so the JSON answer is a
// 503 and the stream ends with a reset and an error event with code
// store_unavailable, never the fallback text as the answer.
func TestStoreOutageDuringTurn(t *testing.T) {
	newFlaky := func() (*flakyStore, func(context.Context) error) {
		f := &flakyStore{store: sharedBackend(t).store, err: errConnRefused}
		return f, func(context.Context) error {
			if f.down.Load() {
				return errConnRefused
			}
			return nil
		}
	}
	t.Run("json", func(t *testing.T) {
		f, ping := newFlaky()
		h, _ := outageServer(t, f, ping, downOnClassify{&f.down})
		wantStoreUnavailable(t, do(t, h, "POST", "/api/chat", `{"message":"tem fungicida para videira?"}`))
	})
	t.Run("stream", func(t *testing.T) {
		f, ping := newFlaky()
		h, _ := outageServer(t, f, ping, downOnClassify{&f.down})
		rec := postSSE(t, h, `{"message":"tem fungicida para videira?"}`)
		if rec.Code != 200 {
			t.Fatalf("status %d", rec.Code)
		}
		wantNoInfra(t, rec.Body.Bytes())
		events, _ := parseSSE(t, rec.Body.Bytes())
		last := events[len(events)-1]
		var b errorBody
		if err := json.Unmarshal(last.Data, &b); last.Name != "error" || err != nil || b.Error.Code != codeStoreUnavailable {
			t.Fatalf("last event %s %s, want error store_unavailable", last.Name, last.Data)
		}
		if kept := tokensAfterReset(t, events); kept != "" {
			t.Errorf("the page is left showing %q; a reset must discard the fallback text before the error", kept)
		}
	})
}

// TestChatDebugErrorsSanitized: one search failing (the catalog's) leaves
// a 200 answer from the others; debug.errors says which search failed,
// without the store's error text, which goes to the log.
func TestChatDebugErrorsSanitized(t *testing.T) {
	f := &flakyStore{store: sharedBackend(t).store, err: errConnRefused, fail: map[storage.OwnerKind]bool{storage.KindItem: true}}
	h, logs := outageServer(t, f, func(context.Context) error { return nil }, nil)
	rec := do(t, h, "POST", "/api/chat", `{"message":"tem fungicida para videira?"}`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	wantNoInfra(t, rec.Body.Bytes())
	r := decode[chatResponse](t, rec)
	if len(r.Debug.Errors) != 1 || r.Debug.Errors[0] != "catalog search failed" {
		t.Errorf("debug.errors = %q, want [\"catalog search failed\"]", r.Debug.Errors)
	}
	if !strings.Contains(logs.String(), "hr_admin") {
		t.Errorf("the log lacks the store's error:\n%s", logs.String())
	}
	// The catalog search alone fails with a connection error: 503.
	wantStoreUnavailable(t, do(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira"}`))
	if rec := do(t, h, "POST", "/api/faq/search", `{"query":"prazo de entrega"}`); rec.Code != 200 {
		t.Errorf("faq search: %d %s", rec.Code, rec.Body.String())
	}
	// Any other store error is a 500 without detail.
	g := &flakyStore{store: sharedBackend(t).store, err: errors.New("postgres: search items: ERROR: relation \"shop_prod_db.items\" does not exist (SQLSTATE 42P01)"),
		fail: map[storage.OwnerKind]bool{storage.KindItem: true}}
	h, _ = outageServer(t, g, func(context.Context) error { return nil }, nil)
	rec = do(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira"}`)
	wantError(t, rec, http.StatusInternalServerError, codeInternal)
	wantNoInfra(t, rec.Body.Bytes())
}

// tokensAfterReset is the answer text a client shows at the end of a
// stream: the tokens after the last reset event.
func tokensAfterReset(t *testing.T, events []sseEvent) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		switch e.Name {
		case "reset":
			b.Reset()
		case "token":
			var tk tokenEventJSON
			if err := json.Unmarshal(e.Data, &tk); err != nil {
				t.Fatal(err)
			}
			b.WriteString(tk.Token)
		}
	}
	return b.String()
}

// TestSSEModelFailsMidStream: the model streams part of an answer, then
// its stream fails. The client gets the partial tokens, a reset event,
// then the fallback text: what it shows after the last reset is exactly
// done.answer, not "Resposta do modelo Desculpe, não consegui…".
func TestSSEModelFailsMidStream(t *testing.T) {
	model := llmtest.NewModel(llmtest.Step{Chunks: []string{"Resposta ", "do modelo"}, Err: errors.New("upstream: connection reset")})
	ans, err := llmchat.NewAnswerer(model, llmchat.AnswererOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := newTestServer(t, nil, withPipeline(t, nil, ans, rag.PipelineOptions{})).routes()
	rec := postSSE(t, h, `{"message":"tem fungicida para videira?"}`)
	events, _ := parseSSE(t, rec.Body.Bytes())
	last := events[len(events)-1]
	if last.Name != "done" {
		t.Fatalf("last event %s %s", last.Name, last.Data)
	}
	var done chatResponse
	if err := json.Unmarshal(last.Data, &done); err != nil {
		t.Fatal(err)
	}
	if done.Answer != rag.DefaultFallbackMessage || !done.Debug.AnswerFallback {
		t.Errorf("done.answer = %q (fallback %v), want the fallback message", done.Answer, done.Debug.AnswerFallback)
	}
	var names []string
	for _, e := range events {
		if e.Name == "token" || e.Name == "reset" {
			names = append(names, e.Name)
		}
	}
	if got := strings.Join(names, " "); got != "token token reset token" {
		t.Errorf("answer events %q, want the two partial tokens, a reset, the fallback", got)
	}
	if shown := tokensAfterReset(t, events); shown != done.Answer {
		t.Errorf("the client shows %q, want done.answer %q", shown, done.Answer)
	}
	if len(done.Debug.Errors) != 1 || strings.Contains(done.Debug.Errors[0], "upstream") {
		t.Errorf("debug.errors = %q, want one sanitized entry", done.Debug.Errors)
	}
}

// TestSSEAnswerWithoutFinishReasonKept: an OpenAI-compatible server that
// ends a complete answer with [DONE] but sends no finish reason (through
// the real llm/openai adapter) is answered with the model's text, not the
// fallback message.
func TestSSEAnswerWithoutFinishReasonKept(t *testing.T) {
	chunk := func(content string) string {
		return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"compat-1","choices":[{"index":0,"delta":{"content":` +
			strconv.Quote(content) + `},"finish_reason":null}]}`
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{chunk("Temos o "), chunk("Fosetal 800 WG."), "[DONE]"} {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}))
	defer upstream.Close()
	model := llmopenai.New(oai.NewClient(option.WithBaseURL(upstream.URL), option.WithAPIKey("test"), option.WithMaxRetries(0)), llmopenai.Options{})
	ans, err := llmchat.NewAnswerer(model, llmchat.AnswererOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := newTestServer(t, nil, withPipeline(t, nil, ans, rag.PipelineOptions{})).routes()
	events, _ := parseSSE(t, postSSE(t, h, `{"message":"tem fungicida para videira?"}`).Body.Bytes())
	last := events[len(events)-1]
	var done chatResponse
	if err := json.Unmarshal(last.Data, &done); last.Name != "done" || err != nil {
		t.Fatalf("last event %s %s", last.Name, last.Data)
	}
	if done.Answer != "Temos o Fosetal 800 WG." || done.Debug.AnswerFallback {
		t.Errorf("answer %q (fallback %v), want the model's answer", done.Answer, done.Debug.AnswerFallback)
	}
	for _, e := range events {
		if e.Name == "reset" {
			t.Error("a complete answer was reset")
		}
	}
}
