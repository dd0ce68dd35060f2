package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// The second fault and bad-input matrix (issue 22): each test reproduces
// one defect through HTTP.

// everySearch is every search of the API: three kinds, three modes.
var everySearch = func() (out []struct{ name, path, body string }) {
	for _, k := range []struct{ name, path, kind string }{
		{"catalog", "/api/rag/search", "catalog"}, {"faq", "/api/faq/search", "faq"}, {"doc", "/api/rag/search", "doc"},
	} {
		for _, mode := range []string{"hybrid", "lexical", "vector"} {
			out = append(out, struct{ name, path, body string }{k.name + "/" + mode, k.path,
				fmt.Sprintf(`{"query":"fungicida","kind":%q,"mode":%q}`, k.kind, mode)})
		}
	}
	return out
}()

// TestStoreOutageEveryMode: with the store down, every search — vector
// mode included, which answered 200 with no results and fallback_reason
// vector-query-error — is 503 store_unavailable with Retry-After.
func TestStoreOutageEveryMode(t *testing.T) {
	f := &flakyStore{store: sharedBackend(t).store, err: errConnRefused}
	f.down.Store(true)
	h, _ := outageServer(t, f, func(context.Context) error { return errConnRefused }, nil)
	for _, s := range everySearch {
		t.Run(s.name, func(t *testing.T) {
			wantStoreUnavailable(t, do(t, h, "POST", s.path, s.body))
		})
	}
	// The store back: the same searches answer.
	f.down.Store(false)
	for _, s := range everySearch {
		if rec := do(t, h, "POST", s.path, s.body); rec.Code != http.StatusOK {
			t.Errorf("%s with the store up: %d %s", s.name, rec.Code, rec.Body.String())
		}
	}
}

// TestStoreOutageEveryModePostgres: the same over a real PostgreSQL store
// whose pool points at a closed port.
func TestStoreOutageEveryModePostgres(t *testing.T) {
	db, st := closedPortStore(t)
	h, _ := outageServer(t, st, db.Ping, nil)
	for _, s := range everySearch {
		t.Run(s.name, func(t *testing.T) {
			wantStoreUnavailable(t, do(t, h, "POST", s.path, s.body))
		})
	}
}

// lat1Body is the body, "café" in Latin-1 (0xE9 at byte 27).
const lat1Body = "{\"title\":\"L\",\"content\":\"caf\xe9 zuvrelix\"}"

// putWithType sends a write with the token and a Content-Type of its own.
func putWithType(t *testing.T, h http.Handler, path, ctype, body string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, "PUT", path, body, "Authorization", "Bearer "+writeToken, "Content-Type", ctype)
}

// testLatin1Writes: a Latin-1 body is never stored with U+FFFD: without a
// charset it is 400 invalid_encoding naming the byte offset; with
// charset=iso-8859-1 (or windows-1252) it is stored as "café" and found by
// a search for "café"; an unknown charset is 415.
func testLatin1Writes(t *testing.T, h http.Handler, be *backend) {
	rec := putWithType(t, h, "/api/documents/lat1", "application/json", lat1Body)
	wantError(t, rec, http.StatusBadRequest, codeInvalidEncoding)
	if !strings.Contains(rec.Body.String(), "byte 27") {
		t.Errorf("the error does not name the offset: %s", rec.Body.String())
	}
	wantError(t, putWithType(t, h, "/api/documents/lat1", "application/json; charset=utf-8", lat1Body), http.StatusBadRequest, codeInvalidEncoding)
	wantError(t, putWithType(t, h, "/api/documents/lat1", "application/json; charset=shift_jis", lat1Body), http.StatusUnsupportedMediaType, codeUnsupportedType)

	for id, ctype := range map[string]string{"lat1": "application/json; charset=iso-8859-1", "cp1": "application/json; charset=Windows-1252"} {
		body := strings.Replace(lat1Body, "zuvrelix", "zuvrelix "+id, 1) // not a duplicate of each other
		if rec := putWithType(t, h, "/api/documents/"+id, ctype, body); rec.Code != http.StatusCreated {
			t.Fatalf("%s: %d %s", ctype, rec.Code, rec.Body.String())
		}
		docs, err := be.store.Documents().GetMany(context.Background(), []string{id})
		if err != nil || len(docs) != 1 || !strings.HasPrefix(docs[0].Content, "café zuvrelix") {
			t.Fatalf("%s: stored %+v (%v), want content café zuvrelix", ctype, docs, err)
		}
	}
	if ids := searchIDs(t, h, "/api/rag/search", `{"query":"café","kind":"doc","mode":"lexical"}`); !slices.Contains(ids, "lat1") || !slices.Contains(ids, "cp1") {
		t.Errorf("search café: %v, want lat1 and cp1", ids)
	}
}

// TestWriteLatin1Body runs testLatin1Writes on the memory store, and
// checks that the other JSON endpoints decide on the raw body too.
func TestWriteLatin1Body(t *testing.T) {
	h, be := newWriteServer(t, "", "")
	testLatin1Writes(t, h, be)
	rec := authed(t, h, "POST", "/api/rag/search", "{\"query\":\"caf\xe9\"}")
	wantError(t, rec, http.StatusBadRequest, codeInvalidEncoding)
	if rec := do(t, h, "POST", "/api/rag/search", "{\"query\":\"caf\xe9\",\"kind\":\"doc\"}", "Content-Type", "application/json; charset=latin1", "Authorization", "Bearer "+writeToken); rec.Code != http.StatusOK {
		t.Errorf("Latin-1 search with its charset: %d %s", rec.Code, rec.Body.String())
	}
}

// manyTags is a list of n short tags ("t0", "t1", ...) as JSON.
func manyTags(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"t%d"`, i)
	}
	b.WriteByte(']')
	return b.String()
}

// manyKeys is a metadata map of n keys as JSON.
func manyKeys(n int) string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("k%05d", i)] = "v"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// testWriteLimits: records over a limit are 400 limit_exceeded naming the
// limit, and nothing is written.
func testWriteLimits(t *testing.T, h http.Handler, be *backend) {
	for _, tc := range []struct{ name, path, body, limit string }{
		{"380000 tags", "/api/items/big", `{"name":"Big","tags":` + manyTags(380000) + `}`, "MaxTags"},
		{"257 tags", "/api/items/big", `{"name":"Big","tags":` + manyTags(storage.MaxTags+1) + `}`, "MaxTags"},
		{"50000 metadata keys", "/api/items/big", `{"name":"Big","metadata":` + manyKeys(50000) + `}`, "MaxMetadataKeys"},
		{"65 document metadata keys", "/api/documents/big", `{"content":"texto","metadata":` + manyKeys(storage.MaxMetadataKeys+1) + `}`, "MaxMetadataKeys"},
		{"long name", "/api/items/big", `{"name":"` + strings.Repeat("a", storage.MaxNameLength+1) + `"}`, "MaxNameLength"},
		{"long tag", "/api/items/big", `{"name":"x","tags":["` + strings.Repeat("a", storage.MaxTagLength+1) + `"]}`, "MaxTagLength"},
		{"257 keywords", "/api/faqs/big", `{"question":"q","answer":"a","keywords":` + manyTags(storage.MaxTags+1) + `}`, "MaxTags"},
		{"long question", "/api/faqs/big", `{"question":"` + strings.Repeat("a", storage.MaxNameLength+1) + `","answer":"a"}`, "MaxNameLength"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := authed(t, h, "PUT", tc.path, tc.body)
			wantError(t, rec, http.StatusBadRequest, codeLimitExceeded)
			if !strings.Contains(rec.Body.String(), tc.limit) {
				t.Errorf("the error does not name %s: %s", tc.limit, rec.Body.String())
			}
		})
	}
	ctx := context.Background()
	if its, _ := be.store.Items().GetMany(ctx, []string{"big"}); len(its) != 0 {
		t.Error("an item over a limit was written")
	}
	if fs, _ := be.store.FAQs().GetMany(ctx, []string{"big"}); len(fs) != 0 {
		t.Error("a FAQ over a limit was written")
	}
	// At the limits, the write goes through.
	if rec := authed(t, h, "PUT", "/api/items/at-limit", `{"name":"No limite","tags":`+manyTags(storage.MaxTags)+`,"metadata":`+manyKeys(storage.MaxMetadataKeys)+`}`); rec.Code != http.StatusCreated {
		t.Errorf("at the limits: %d %s", rec.Code, rec.Body.String())
	}
}

// TestWriteLimits runs testWriteLimits on the memory store.
func TestWriteLimits(t *testing.T) {
	h, be := newWriteServer(t, "", "")
	testWriteLimits(t, h, be)
}

// gateEmbedder embeds like llmtest, except that a text holding its marker
// waits for release (and reports on started first): a write that is slow
// for as long as the test wants.
type gateEmbedder struct {
	dims             int
	marker           string
	started, release chan struct{}
}

func (g gateEmbedder) Dimensions() int { return g.dims }

func (g gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	hash, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: g.dims})
	if err != nil {
		return nil, err
	}
	for _, s := range texts {
		if strings.Contains(s, g.marker) {
			g.started <- struct{}{}
			select {
			case <-g.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return hash.Embed(ctx, texts)
}

var _ vector.Embedder = gateEmbedder{}

// TestWritesSerializedPerRecord: a slow write (held inside the embedder)
// no longer stalls the writes of other records, which answer while it
// waits; a second write of the same record waits for it.
func TestWritesSerializedPerRecord(t *testing.T) {
	cfg := testConfig(t)
	cfg.Token = writeToken
	be, err := openBackend(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(be.close)
	gate := gateEmbedder{dims: be.info.Dimensions, marker: "LENTOXYZ", started: make(chan struct{}, 1), release: make(chan struct{})}
	be.indexer = ingest.NewIndexer(be.store, markedEmbedder{gate}, ingest.IndexerOptions{})
	s := newServerWith(cfg, nil, be)
	t.Cleanup(s.stopStreams)
	h := s.routes()

	slow := make(chan *httptest.ResponseRecorder, 1)
	go func() { slow <- authed(t, h, "PUT", "/api/items/slow", `{"name":"Produto LENTOXYZ"}`) }()
	<-gate.started // the slow write holds its record's lock, inside the embedder

	for _, w := range []struct{ path, body string }{
		{"/api/faqs/small", `{"question":"Entregam no sábado?","answer":"Sim, até o meio-dia."}`},
		{"/api/items/other", `{"name":"Outro produto"}`},
		{"/api/documents/note", `{"content":"Nota curta sobre geada."}`},
	} {
		if rec := authed(t, h, "PUT", w.path, w.body); rec.Code != http.StatusCreated {
			t.Errorf("PUT %s while another record's write is slow: %d %s", w.path, rec.Code, rec.Body.String())
		}
	}
	if rec := authed(t, h, "DELETE", "/api/faqs/small", ""); rec.Code != http.StatusOK {
		t.Errorf("DELETE while another record's write is slow: %d %s", rec.Code, rec.Body.String())
	}
	select {
	case rec := <-slow:
		t.Fatalf("the slow write returned early: %d %s", rec.Code, rec.Body.String())
	default:
	}

	// The same record: its lock is held, so a write with a short deadline
	// gives up waiting (the request's context bounds the wait).
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.writeLocks.lock(ctx, recordKey(string(storage.KindItem), "slow")); err == nil {
		t.Error("the slow record's lock was free during its write")
	}
	close(gate.release)
	if rec := <-slow; rec.Code != http.StatusCreated {
		t.Errorf("the slow write: %d %s", rec.Code, rec.Body.String())
	}
	if n := s.writeLocks.size(); n != 0 {
		t.Errorf("%d lock entries left after the writes", n)
	}
}

// TestRecordLocks: the keyed lock excludes holders of one key, not of
// others; a waiter gives up when its context ends, leaving nothing held.
func TestRecordLocks(t *testing.T) {
	var l recordLocks
	ctx := context.Background()
	unlockA, err := l.lock(ctx, "a", "c")
	if err != nil {
		t.Fatal(err)
	}
	unlockB, err := l.lock(ctx, "b")
	if err != nil {
		t.Fatalf("b while a is held: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := l.lock(short, "b", "a"); err == nil {
		t.Fatal("a and b taken while held")
	}
	if n := l.size(); n != 3 {
		t.Errorf("%d entries, want a, b and c", n)
	}
	unlockA()
	unlockB()
	unlock, err := l.lock(ctx, "a", "b", "a")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if n := l.size(); n != 0 {
		t.Errorf("%d entries left", n)
	}
}

// TestRateLimitHopsDirectClient: with -trusted-hops 2 and a client
// reaching the port directly, rotating a single X-Forwarded-For entry no
// longer gives it a new bucket per request: with fewer entries than the
// hops, the client is the peer.
func TestRateLimitHopsDirectClient(t *testing.T) {
	h := newTestServer(t, func(c *config) { c.Rate, c.Burst, c.TrustProxy, c.TrustedHops = 0.1, 1, true, 2 }, nil).routes()
	passed := 0
	for i := range 10 {
		r := newRequest(t, "POST", "/api/rag/search", `{"query":"fungicida","mode":"lexical"}`)
		r.RemoteAddr = "198.51.100.20:40000"
		r.Header.Set("X-Forwarded-For", fmt.Sprintf("1.2.3.%d", i))
		if rec := serve(h, r); rec.Code == http.StatusOK {
			passed++
		} else if rec.Code != http.StatusTooManyRequests {
			t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	}
	if passed != 1 {
		t.Errorf("%d of 10 passed, want the burst of 1", passed)
	}
}

// TestTrustProxyWarning: -trust-proxy or -trusted-hops without
// -trusted-proxies warns at start-up; with -trusted-proxies, or without
// trusting any proxy, nothing is said.
func TestTrustProxyWarning(t *testing.T) {
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"-trust-proxy"}, true},
		{[]string{"-trusted-hops", "2"}, true},
		{[]string{"-trusted-proxies", "10.0.0.0/8"}, false},
		{[]string{"-trust-proxy", "-trusted-proxies", "10.0.0.0/8"}, false},
		{nil, false},
	} {
		cfg, err := parseConfig(tc.args, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := trustProxyWarning(cfg) != ""; got != tc.warn {
			t.Errorf("%v: warning %v, want %v", tc.args, got, tc.warn)
		}
	}
}

// agenticTurn posts one agentic chat message from the client at remote,
// replying to confirmation id when set.
func agenticTurn(t *testing.T, h http.Handler, remote, message, id string) chatResponse {
	t.Helper()
	body := map[string]any{"message": message, "mode": "agentic"}
	if id != "" {
		body["confirmation_id"] = id
	}
	b, _ := json.Marshal(body)
	r := newRequest(t, "POST", "/api/chat", string(b))
	r.RemoteAddr = remote
	rec := serve(h, r)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %q: status %d: %s", remote, message, rec.Code, rec.Body.String())
	}
	return decode[chatResponse](t, rec)
}

// TestConfirmationsPerClient: one client filling the confirmation table
// (1,000 agentic turns, each waiting for a confirmation) no longer drops
// another user's pending confirmation; another client naming that ID
// starts a new turn and leaves it pending; its own client confirms it.
func TestConfirmationsPerClient(t *testing.T) {
	const alice, mallory = "192.0.2.10:5000", "203.0.113.66:5000"
	steps := []llmtest.Step{llmtest.ToolCalls(llmtest.Call("q0", actions.QuoteToolName, quote200))}
	for i := range maxPendingConfirmations {
		steps = append(steps, llmtest.ToolCalls(llmtest.Call(fmt.Sprintf("m%d", i), actions.QuoteToolName, quote500)))
	}
	steps = append(steps, llmtest.ToolCalls(llmtest.Call("m-alice-id", actions.QuoteToolName, quote500)))
	steps = append(steps, llmtest.Text("Pronto! Cotação solicitada."))
	swap, book := withAgent(t, llmtest.NewModel(steps...))
	s := newTestServer(t, nil, swap)
	h := s.routes()

	r := agenticTurn(t, h, alice, "quero cotação de 200 L de Glifosato 480 SL, e-mail compras@fazenda.com.br", "")
	if r.Confirmation == nil {
		t.Fatalf("no confirmation for alice: %+v", r)
	}
	aliceID := r.Confirmation.ID
	for range maxPendingConfirmations {
		r := agenticTurn(t, h, mallory, "quero cotação de 500 L de Glifosato 480 SL", "")
		if r.Confirmation == nil {
			t.Fatalf("no confirmation for mallory: %+v", r)
		}
	}
	if n := s.pending.pending(); n != 1+maxPendingPerClient {
		t.Errorf("%d confirmations pending, want alice's and mallory's quota of %d", n, maxPendingPerClient)
	}
	// Mallory names alice's ID: a new turn, and alice's stays pending.
	r = agenticTurn(t, h, mallory, "sim", aliceID)
	if r.Debug.Decision == string(llm.DecisionConfirm) || !slices.Contains(r.Debug.Errors, sanitizeDebugError(staleConfirmationNote)) {
		t.Errorf("another client's ID: decision %q, errors %q", r.Debug.Decision, r.Debug.Errors)
	}
	if book.submitted.Load() != 0 {
		t.Fatal("a quote was submitted with another client's confirmation")
	}
	// Alice confirms hers.
	r = agenticTurn(t, h, alice, "sim", aliceID)
	if r.Debug.Decision != string(llm.DecisionConfirm) || book.submitted.Load() != 1 {
		t.Fatalf("alice's confirmation after the flood: decision %q, submitted %d", r.Debug.Decision, book.submitted.Load())
	}
	if kept := book.kept(); kept[0].Quote.Quantity != 200 {
		t.Errorf("submitted %+v, want alice's 200 L", kept[0].Quote)
	}
}

// TestConfirmationsQuota: the table's own rules. A client over its quota
// loses its own oldest; a full table drops from the client holding the
// most, never a client's only one.
func TestConfirmationsQuota(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := newConfirmations(4, 2)
	c.now = func() time.Time { return now }
	pc := func(id string, age time.Duration) *llm.PendingConfirmation {
		return &llm.PendingConfirmation{ID: id, CreatedAt: now.Add(-age), ExpiresAt: now.Add(time.Hour)}
	}
	c.put("a", pc("a1", 10*time.Minute)) // the oldest of all
	c.put("m", pc("m1", 3*time.Minute))
	c.put("m", pc("m2", 2*time.Minute))
	c.put("m", pc("m3", time.Minute)) // over m's quota: m1 goes
	if c.take("m", "m1") != nil {
		t.Error("m1 survived its client's quota")
	}
	c.put("m", pc("m1", 3*time.Minute))
	c.put("n", pc("n1", 0))
	c.put("o", pc("o1", 0)) // full (a1, m3, m1, n1): m, holding the most, loses its oldest
	if got := c.pending(); got != 4 {
		t.Errorf("%d pending, want 4", got)
	}
	if c.take("a", "a1") == nil {
		t.Error("the full table dropped a's only confirmation")
	}
	if c.take("a", "o1") != nil || c.take("o", "o1") == nil {
		t.Error("a confirmation was taken by another client, or lost")
	}
}

// TestWriteRejectsControlCharacters: IDs with control characters or a
// bidirectional override, and a document of control characters alone,
// are 400s on every kind; nothing is written.
func TestWriteRejectsControlCharacters(t *testing.T) {
	h, be := newWriteServer(t, "", "")
	testControlCharacters(t, h, be)
}

func testControlCharacters(t *testing.T, h http.Handler, be *backend) {
	bodies := map[string]string{"/api/items/": `{"name":"Produto"}`, "/api/faqs/": `{"question":"Pergunta?","answer":"Resposta."}`, "/api/documents/": `{"content":"texto normal"}`}
	for prefix, body := range bodies {
		for _, id := range []string{"a\nb", "a\tb", "a\rb", "a\x1bb", "x\u202Efdp.exe", "a\u2066b"} {
			wantError(t, authed(t, h, "PUT", prefix+url.PathEscape(id), body), http.StatusBadRequest, codeInvalidField)
		}
	}
	for _, content := range []string{`\u0001\u0002\u0003\u0007\u001b`, `\u200b\u202e \t`} {
		wantError(t, authed(t, h, "PUT", "/api/documents/ctrl", `{"title":"t","content":"`+content+`"}`), http.StatusBadRequest, codeInvalidRecord)
	}
	wantError(t, authed(t, h, "PUT", "/api/items/ctrl", `{"name":"\u0001\u0002"}`), http.StatusBadRequest, codeInvalidRecord)
	ctx := context.Background()
	if ds, _ := be.store.Documents().GetMany(ctx, []string{"ctrl"}); len(ds) != 0 {
		t.Error("a document of control characters was written")
	}
}

// TestHardening2Postgres runs the write checks of the matrix (encoding,
// limits, control characters) on PostgreSQL.
func TestHardening2Postgres(t *testing.T) {
	dsn := testDSN(t)
	const schema = "chatserver_hardening2_test"
	dropSchemaAfter(t, dsn, schema)
	h, be := newWriteServer(t, dsn, schema)
	if be.info.Store != "postgres" {
		t.Fatalf("store %q, want postgres", be.info.Store)
	}
	t.Run("latin1", func(t *testing.T) { testLatin1Writes(t, h, be) })
	t.Run("limits", func(t *testing.T) { testWriteLimits(t, h, be) })
	t.Run("control characters", func(t *testing.T) { testControlCharacters(t, h, be) })
}
