package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// writeToken is the bearer token of the write tests.
const writeToken = "s3cret-write-token"

// newWriteServer opens a backend of its own (the write tests change the
// store; the shared backend must stay as testdata made it) with a token,
// on PostgreSQL when dsn is set (in schema, a fresh tenant).
func newWriteServer(t *testing.T, dsn, schema string) (http.Handler, *backend) {
	t.Helper()
	cfg := testConfig(t)
	cfg.Token = writeToken
	if dsn != "" {
		cfg.Env.DatabaseURL, cfg.Schema = dsn, schema
		cfg.Tenant = fmt.Sprintf("w%d", time.Now().UnixNano())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	be, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(be.close)
	s := newServerWith(cfg, nil, be)
	t.Cleanup(s.stopStreams)
	return s.routes(), be
}

// authed sends a request with the write token.
func authed(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, method, path, body, "Authorization", "Bearer "+writeToken)
}

// searchIDs returns the IDs of the hits of a search on the given endpoint
// (body without braces is a query).
func searchIDs(t *testing.T, h http.Handler, path, body string) []string {
	t.Helper()
	rec := authed(t, h, "POST", path, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("search %s %s: %d %s", path, body, rec.Code, rec.Body.String())
	}
	r := decode[searchResponse](t, rec)
	ids := make([]string, len(r.Hits))
	for i, hit := range r.Hits {
		ids[i] = hit.ID
	}
	return ids
}

// chunkTexts returns the stored chunks of owner, joined, and whether every
// one has an embedding.
func chunkTexts(t *testing.T, be *backend, owner storage.OwnerRef) (string, int, bool) {
	t.Helper()
	cs, err := be.store.Chunks(context.Background(), owner)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	embedded := true
	for _, c := range cs {
		b.WriteString(c.Content)
		b.WriteByte('\n')
		embedded = embedded && len(c.Embedding) > 0
	}
	return b.String(), len(cs), embedded
}

// writeCase is one kind of record of the lifecycle test: the bodies of
// its create and update (old and new words), and the search that finds it.
type writeCase struct {
	name           string
	kind           storage.OwnerKind
	path           string // /api/items/ID
	create, update string
	oldWord        string
	newWord        string
	search         string // search endpoint
	kindField      string // "kind" of /api/rag/search, "" for faq
	// keep and drop are filters that keep and exclude the created record.
	keep, drop string
}

func writeCases(prefix string) []writeCase {
	return []writeCase{
		{
			name: "item", kind: storage.KindItem, path: "/api/items/" + prefix + "item-1",
			create: `{"name":"Zorblax 500 EC","description":"Inseticida zorblax para lagartas na soja.","category":"Inseticida",
				"manufacturer":"Testes SA","tags":["Soja"],"price":99.5,"metadata":{"formulacao":"EC"},
				"files":[{"name":"bula.txt","text":"Bula do zorblax: aplicar 200 mL/ha em lagartas da soja."}]}`,
			update: `{"id":"` + prefix + `item-1","name":"Plumbrite 500 EC","description":"Inseticida plumbrite para lagartas na soja.","category":"Inseticida",
				"manufacturer":"Testes SA","tags":["Soja"],"price":99.5,"metadata":{"formulacao":"EC"},
				"files":[{"name":"bula.txt","text":"Bula do plumbrite: aplicar 200 mL/ha em lagartas da soja."}]}`,
			oldWord: "zorblax", newWord: "plumbrite", search: "/api/rag/search", kindField: "catalog",
			keep: `{"category":"inseticida","tag":"soja","manufacturer":"testes sa","metadata":{"formulacao":"ec"}}`,
			drop: `{"metadata":{"formulacao":"SC"}}`,
		},
		{
			name: "faq", kind: storage.KindFAQ, path: "/api/faqs/" + prefix + "faq-1",
			create:  `{"question":"Vocês aceitam pagamento em quartzorim?","answer":"Sim, o quartzorim é aceito em todas as compras.","category":"pagamento","keywords":["quartzorim"]}`,
			update:  `{"question":"Vocês aceitam pagamento em velundra?","answer":"Sim, a velundra é aceita em todas as compras.","category":"pagamento","keywords":["velundra"]}`,
			oldWord: "quartzorim", newWord: "velundra", search: "/api/faq/search",
			keep: `{"category":"Pagamento"}`, drop: `{"category":"entrega"}`,
		},
		{
			name: "document", kind: storage.KindDocument, path: "/api/documents/" + prefix + "docs/guia.md",
			create: `{"title":"Guia do brastivo","format":"markdown","metadata":{"tema":"testes"},
				"content":"# Guia do brastivo\n\nO brastivo protege a lavoura contra a geada.\n\n## Aplicação\n\nAplique o brastivo ao entardecer."}`,
			update: `{"title":"Guia do melquior","format":"markdown","metadata":{"tema":"testes"},
				"content":"# Guia do melquior\n\nO melquior protege a lavoura contra a geada.\n\n## Aplicação\n\nAplique o melquior ao entardecer."}`,
			oldWord: "brastivo", newWord: "melquior", search: "/api/rag/search", kindField: "doc",
			keep: `{"source":"api","metadata":{"tema":"testes"}}`, drop: `{"metadata":{"tema":"milho"}}`,
		},
	}
}

// searchBody is a search request for word on tc's endpoint, with the
// filters object filters when not empty.
func (tc writeCase) searchBody(word, mode string, filters ...string) string {
	b := `{"query":"` + word + `","mode":"` + mode + `","limit":10`
	if tc.kindField != "" {
		b += `,"kind":"` + tc.kindField + `"`
	}
	for _, f := range filters {
		b += `,"filters":` + f
	}
	return b + "}"
}

// testWriteLifecycle creates, updates and deletes a record of each kind
// through HTTP: searches see every change, an update re-embeds the
// changed chunks (none of the old text left), a delete removes the
// chunks.
func testWriteLifecycle(t *testing.T, h http.Handler, be *backend, prefix string) {
	for _, tc := range writeCases(prefix) {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.TrimPrefix(tc.path, "/api/"+map[storage.OwnerKind]string{storage.KindItem: "items", storage.KindFAQ: "faqs", storage.KindDocument: "documents"}[tc.kind]+"/")
			owner := storage.OwnerRef{Kind: tc.kind, ID: id}
			found := func(word, mode string) bool {
				return slices.Contains(searchIDs(t, h, tc.search, tc.searchBody(word, mode)), id)
			}

			// Create.
			rec := authed(t, h, "PUT", tc.path, tc.create)
			if rec.Code != http.StatusCreated {
				t.Fatalf("create: %d %s", rec.Code, rec.Body.String())
			}
			w := decode[writeResponse](t, rec)
			if !w.Created || w.ID != id || w.Kind != string(tc.kind) || w.Index.Embedded == 0 || w.Index.Chunks == 0 {
				t.Errorf("create response %+v", w)
			}
			if !found(tc.oldWord, "hybrid") || !found(tc.oldWord, "lexical") {
				t.Errorf("search %q does not find the new %s", tc.oldWord, tc.kind)
			}
			text, n, embedded := chunkTexts(t, be, owner)
			if n == 0 || !embedded || !strings.Contains(strings.ToLower(text), tc.oldWord) {
				t.Errorf("after create: %d chunks (embedded %v): %q", n, embedded, text)
			}
			// The store filters the new record on both legs.
			for _, mode := range []string{"lexical", "hybrid"} {
				if !slices.Contains(searchIDs(t, h, tc.search, tc.searchBody(tc.oldWord, mode, tc.keep)), id) {
					t.Errorf("%s search with filters %s misses the new %s", mode, tc.keep, tc.kind)
				}
				if slices.Contains(searchIDs(t, h, tc.search, tc.searchBody(tc.oldWord, mode, tc.drop)), id) {
					t.Errorf("%s search with filters %s finds the new %s", mode, tc.drop, tc.kind)
				}
			}

			// The same record again: nothing embedded or written.
			rec = authed(t, h, "PUT", tc.path, tc.create)
			if w := decode[writeResponse](t, rec); rec.Code != http.StatusOK || w.Created || !w.Index.Unchanged || w.Index.Embedded != 0 {
				t.Errorf("unchanged re-put: %d %+v", rec.Code, w)
			}

			// Update: the new words are found, the old ones are not, in
			// the records and in the chunks.
			rec = authed(t, h, "PUT", tc.path, tc.update)
			if rec.Code != http.StatusOK {
				t.Fatalf("update: %d %s", rec.Code, rec.Body.String())
			}
			if w := decode[writeResponse](t, rec); w.Created || w.Index.Embedded == 0 {
				t.Errorf("update response %+v, want re-embedded chunks", w)
			}
			if !found(tc.newWord, "hybrid") || !found(tc.newWord, "lexical") {
				t.Errorf("search %q does not find the updated %s", tc.newWord, tc.kind)
			}
			if found(tc.oldWord, "lexical") || found(tc.oldWord, "hybrid") {
				t.Errorf("search %q still finds the updated %s", tc.oldWord, tc.kind)
			}
			text, n, embedded = chunkTexts(t, be, owner)
			low := strings.ToLower(text)
			if n == 0 || !embedded || !strings.Contains(low, tc.newWord) || strings.Contains(low, tc.oldWord) {
				t.Errorf("after update: %d chunks (embedded %v), want the new text only: %q", n, embedded, text)
			}

			// Delete: gone from search, chunks gone; a second delete is 404.
			rec = authed(t, h, "DELETE", tc.path, "")
			if d := decode[deleteResponse](t, rec); rec.Code != http.StatusOK || !d.Deleted || d.ID != id {
				t.Fatalf("delete: %d %s", rec.Code, rec.Body.String())
			}
			if found(tc.newWord, "hybrid") || found(tc.newWord, "vector") {
				t.Errorf("search %q still finds the deleted %s", tc.newWord, tc.kind)
			}
			refs, err := be.store.ChunkRefs(context.Background(), tc.kind, []string{id})
			if err != nil || len(refs) != 0 {
				t.Errorf("chunks of the deleted %s: %d (%v)", tc.kind, len(refs), err)
			}
			wantError(t, authed(t, h, "DELETE", tc.path, ""), http.StatusNotFound, codeNotFound)
		})
	}
}

// TestWriteAPILifecycle runs the lifecycle on the memory backend.
func TestWriteAPILifecycle(t *testing.T) {
	h, be := newWriteServer(t, "", "")
	testWriteLifecycle(t, h, be, "")
}

// TestPostgresWriteAPI runs the lifecycle on PostgreSQL, in a schema of
// its own dropped afterwards.
func TestPostgresWriteAPI(t *testing.T) {
	dsn := testDSN(t)
	const schema = "chatserver_write_test"
	dropSchemaAfter(t, dsn, schema)
	h, be := newWriteServer(t, dsn, schema)
	if be.info.Store != "postgres" {
		t.Fatalf("store %q, want postgres", be.info.Store)
	}
	testWriteLifecycle(t, h, be, "pg-")
	r := decode[searchResponse](t, authed(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira"}`))
	if r.Store != storePostgres || !r.VectorLeg || !r.PGVector {
		t.Errorf("postgres search: store %q vector_leg %v pgvector %v", r.Store, r.VectorLeg, r.PGVector)
	}
}

// TestWriteAPIRefusedWithoutToken: with no token configured the write API
// refuses every write (an open demo cannot be written to); with one, a
// missing or wrong token is 401; other methods are 405.
func TestWriteAPIRefusedWithoutToken(t *testing.T) {
	open := newTestServer(t, nil, nil).routes()
	for _, path := range []string{"/api/items/prd-001", "/api/faqs/faq-001", "/api/documents/doc-001"} {
		wantError(t, do(t, open, "PUT", path, `{"name":"x"}`), http.StatusForbidden, codeWritesDisabled)
		wantError(t, do(t, open, "DELETE", path, ""), http.StatusForbidden, codeWritesDisabled)
		wantError(t, do(t, open, "DELETE", path, "", "Authorization", "Bearer anything"), http.StatusForbidden, codeWritesDisabled)
	}
	locked := newTestServer(t, func(c *config) { c.Token = writeToken }, nil).routes()
	wantError(t, do(t, locked, "DELETE", "/api/items/prd-001", ""), http.StatusUnauthorized, codeUnauthorized)
	wantError(t, do(t, locked, "PUT", "/api/items/prd-001", `{"name":"x"}`, "Authorization", "Bearer wrong"), http.StatusUnauthorized, codeUnauthorized)
	wantMethodNotAllowed(t, authed(t, locked, "GET", "/api/items/prd-001", ""), "/api/items/prd-001", "DELETE, PUT")
	// The shared backend is untouched.
	if _, err := sharedBackend(t).store.Items().GetMany(context.Background(), []string{"prd-001"}); err != nil {
		t.Fatal(err)
	}
}

// TestWriteAPIBadInput: invalid records are typed 400s (nothing is
// written), a duplicate document is 409, a missing record 404.
func TestWriteAPIBadInput(t *testing.T) {
	h, be := newWriteServer(t, "", "")
	before, err := be.store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", storage.MaxIDLength+1)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"unknown field", "PUT", "/api/items/n1", `{"name":"x","colour":"red"}`, 400, codeInvalidJSON},
		{"not JSON", "PUT", "/api/items/n1", `{"name":`, 400, codeInvalidJSON},
		{"item without name", "PUT", "/api/items/n1", `{"description":"x"}`, 400, codeInvalidRecord},
		{"negative price", "PUT", "/api/items/n1", `{"name":"x","price":-1}`, 400, codeInvalidRecord},
		{"file without text", "PUT", "/api/items/n1", `{"name":"x","files":[{"name":"a.txt","text":" "}]}`, 400, codeInvalidRecord},
		{"NUL in text", "PUT", "/api/items/n1", `{"name":"x","description":"a\u0000b"}`, 400, codeInvalidRecord},
		{"bad status", "PUT", "/api/items/n1", `{"name":"x","status":"maybe"}`, 400, codeInvalidField},
		{"id differs", "PUT", "/api/items/n1", `{"id":"n2","name":"x"}`, 400, codeInvalidField},
		{"empty id", "PUT", "/api/items/", `{"name":"x"}`, 400, codeInvalidField},
		{"long id", "PUT", "/api/items/" + long, `{"name":"x"}`, 400, codeInvalidField},
		{"faq without answer", "PUT", "/api/faqs/f1", `{"question":"q?"}`, 400, codeInvalidRecord},
		{"document without content", "PUT", "/api/documents/d1", `{"title":"t","content":"  "}`, 400, codeInvalidRecord},
		{"document format", "PUT", "/api/documents/d1", `{"content":"x","format":"pdf"}`, 400, codeInvalidField},
		{"duplicate document", "PUT", "/api/documents/d1", `{"content":` + quoteJSON(t, docContent(t, be, "doc-001")) + `}`, 409, codeDuplicate},
		{"delete missing item", "DELETE", "/api/items/nope", "", 404, codeNotFound},
		{"delete missing faq", "DELETE", "/api/faqs/nope", "", 404, codeNotFound},
		{"delete missing document", "DELETE", "/api/documents/nope", "", 404, codeNotFound},
		{"delete FAQ ID as item", "DELETE", "/api/items/faq-001", "", 404, codeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, authed(t, h, tc.method, tc.path, tc.body), tc.status, tc.code)
		})
	}
	after, err := be.store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("counts %+v after bad writes, want %+v", after, before)
	}
}

// TestWriteAPIStatus: an item written inactive is stored but not found;
// written active again, it is.
func TestWriteAPIStatus(t *testing.T) {
	h, _ := newWriteServer(t, "", "")
	body := func(status string) string {
		return `{"name":"Gravilux 10 SC","description":"Fungicida gravilux.","status":"` + status + `"}`
	}
	if rec := authed(t, h, "PUT", "/api/items/g1", body("inativo")); rec.Code != http.StatusCreated {
		t.Fatalf("put: %d %s", rec.Code, rec.Body.String())
	}
	if ids := searchIDs(t, h, "/api/rag/search", `{"query":"gravilux"}`); slices.Contains(ids, "g1") {
		t.Errorf("inactive item found: %v", ids)
	}
	if rec := authed(t, h, "PUT", "/api/items/g1", body("active")); rec.Code != http.StatusOK {
		t.Fatalf("put: %d %s", rec.Code, rec.Body.String())
	}
	if ids := searchIDs(t, h, "/api/rag/search", `{"query":"gravilux"}`); !slices.Contains(ids, "g1") {
		t.Errorf("active item not found: %v", ids)
	}
}

// docContent is the stored content of a document.
func docContent(t *testing.T, be *backend, id string) string {
	t.Helper()
	docs, err := be.store.Documents().GetMany(context.Background(), []string{id})
	if err != nil || len(docs) != 1 {
		t.Fatalf("document %s: %v", id, err)
	}
	return docs[0].Content
}

// quoteJSON is s as a JSON string.
func quoteJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteAPIConcurrentSearches: searches and chat turns running while
// records are written and deleted all succeed (run with -race), and
// /api/stats reports the write API.
func TestWriteAPIConcurrentSearches(t *testing.T) {
	h, _ := newWriteServer(t, "", "")
	st := decode[statsResponse](t, authed(t, h, "GET", "/api/stats", ""))
	if !st.WriteAPI || !st.Auth || !slices.Equal(st.MetadataKeys, defaultMetadataKeys) {
		t.Errorf("stats: write_api %v auth %v metadata keys %v", st.WriteAPI, st.Auth, st.MetadataKeys)
	}
	done := make(chan struct{})
	errs := make(chan string, 64)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				path, body := "/api/rag/search", `{"query":"inseticida zorblax soja"}`
				if i == 2 {
					path, body = "/api/chat", `{"message":"tem inseticida zorblax?"}`
				}
				if rec := authed(t, h, "POST", path, body); rec.Code != http.StatusOK {
					errs <- fmt.Sprintf("%s: %d %s", path, rec.Code, rec.Body.String())
					return
				}
			}
		})
	}
	for i := range 20 {
		path := fmt.Sprintf("/api/items/c-%d", i%4)
		body := fmt.Sprintf(`{"name":"Zorblax %d","description":"Inseticida zorblax versão %d para soja."}`, i, i)
		if rec := authed(t, h, "PUT", path, body); rec.Code != http.StatusOK && rec.Code != http.StatusCreated {
			t.Errorf("put %s: %d %s", path, rec.Code, rec.Body.String())
		}
		if i%3 == 2 {
			if rec := authed(t, h, "DELETE", path, ""); rec.Code != http.StatusOK {
				t.Errorf("delete %s: %d %s", path, rec.Code, rec.Body.String())
			}
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if st := decode[statsResponse](t, authed(t, h, "GET", "/api/stats", "")); st.Requests.Writes != 26 {
		t.Errorf("stats: %d writes, want 26", st.Requests.Writes)
	}
}

// TestWriteAPIEmbedderDown: a write whose embedding fails is 502
// upstream_error, writes nothing and logs no error (a warning).
func TestWriteAPIEmbedderDown(t *testing.T) {
	_, be := newWriteServer(t, "", "")
	cfg := testConfig(t)
	cfg.Token = writeToken
	s := newServerWith(cfg, nil, be)
	defer s.stopStreams()
	logged := &errorLog{}
	s.log = slog.New(logged)
	down := vector.EmbedderFunc{Dims: be.store.Dimensions(), Fn: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("dial tcp 10.0.0.1:443: connection refused (api.example.com)")
	}}
	be.indexer = ingest.NewIndexer(be.store, markedEmbedder{down}, ingest.IndexerOptions{})
	h := s.routes()
	before, err := be.store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec := authed(t, h, "PUT", "/api/items/e1", `{"name":"Zorblax","description":"zorblax"}`)
	wantError(t, rec, http.StatusBadGateway, codeUpstream)
	if strings.Contains(rec.Body.String(), "example.com") {
		t.Errorf("the embedder's error reached the client: %s", rec.Body.String())
	}
	// An update of a stored record fails the same way and keeps it.
	rec = authed(t, h, "PUT", "/api/faqs/faq-001", `{"question":"Nova pergunta?","answer":"Nova resposta."}`)
	wantError(t, rec, http.StatusBadGateway, codeUpstream)
	if after, err := be.store.Counts(context.Background()); err != nil || after != before {
		t.Errorf("counts %+v (%v), want %+v", after, err, before)
	}
	faqs, err := be.store.FAQs().GetMany(context.Background(), []string{"faq-001"})
	if err != nil || len(faqs) != 1 || faqs[0].Question == "Nova pergunta?" {
		t.Errorf("faq-001 after a failed update: %+v (%v)", faqs, err)
	}
	if len(logged.msgs) > 0 {
		t.Errorf("error-level logs: %q", logged.msgs)
	}
}
