package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/storage"
)

// fuzzWriteKinds are the record kinds of FuzzWriteRequest: path prefix,
// owner kind and the body type decodeJSON fills.
var fuzzWriteKinds = []struct {
	prefix string
	kind   storage.OwnerKind
	body   func() any
}{
	{"/api/items/", storage.KindItem, func() any { return new(itemWrite) }},
	{"/api/faqs/", storage.KindFAQ, func() any { return new(faqWrite) }},
	{"/api/documents/", storage.KindDocument, func() any { return new(documentWrite) }},
}

var (
	fuzzWriteOnce sync.Once
	fuzzWriteBE   *backend
	fuzzWriteErr  error
)

// fuzzWriteBackend is one memory backend for the whole fuzz run (the
// writes accumulate in it; the shared backend must stay as testdata made
// it).
func fuzzWriteBackend(t *testing.T) *backend {
	t.Helper()
	fuzzWriteOnce.Do(func() {
		cfg := testConfig(t)
		fuzzWriteBE, fuzzWriteErr = openBackend(context.Background(), cfg, nil)
	})
	if fuzzWriteErr != nil {
		t.Fatal(fuzzWriteErr)
	}
	return fuzzWriteBE
}

// FuzzWriteRequest sends arbitrary PUT and DELETE requests to the write
// API (memory backend, a token configured, a 1 KiB body limit the fuzzer
// crosses). Whatever the ID and body, the answer is JSON, never a 5xx, and
// the server logs no error; a body the strict decoder refuses is 400
// invalid_json (or 413); a 2xx PUT leaves the record stored with embedded
// chunks, a 200 DELETE leaves neither record nor chunks.
//
//	go test -run '^$' -fuzz '^FuzzWriteRequest$' -fuzztime 60s ./examples/chatserver
func FuzzWriteRequest(f *testing.F) {
	for _, seed := range []struct {
		kind, method uint8
		id, body     string
	}{
		{0, 0, "prd-900", `{"name":"Cobre Total 50 WP","description":"Fungicida","tags":["Café"," "],"price":79.9,"files":[{"name":"bula.txt","text":"Café: 2 kg/ha."}]}`},
		{0, 0, "prd-001", `{"name":"Fungiprot 250 SC","status":"inativo"}`},
		{0, 0, "x", `{"name":"x","price":-1}`},
		{0, 0, "x", `{"name":"x","price":1e400}`},
		{0, 0, "x", `{"name":"x","metadata":{"a":"\u0000"}}`},
		{0, 0, "x", `{"id":"y","name":"x"}`},
		{0, 0, "a/b c", `{"name":"barra"}`},
		{0, 0, " ", `{"name":"x"}`},
		{0, 0, "x", `{"name":"x","files":[{"name":"a","text":"b"},{"name":"a","text":"b"}]}`},
		{0, 1, "prd-002", ``},
		{0, 1, "nope", ``},
		{1, 0, "faq-900", `{"question":"Entregam sábado?","answer":"Sim.","keywords":["sábado"],"priority":3}`},
		{1, 0, "faq-900", `{"question":"q"}`},
		{1, 1, "faq-001", ``},
		{2, 0, "guia", `{"title":"Geada","format":"markdown","content":"# Geada\n\n## Antes\n\nIrrigue."}`},
		{2, 0, "guia", `{"content":"---\nid: outro\n---\n# T\n\ntexto","format":"md"}`},
		{2, 0, "d", `{"content":"\ufeff\r\n"}`},
		{2, 0, "d", `{"content":"x","format":"docx"}`},
		{2, 1, "doc-001", ``},
		{0, 0, "x", `{"name":"` + strings.Repeat("a", 1100) + `"}`},
		{0, 0, "x", `null`},
		{2, 0, "lat1", "{\"title\":\"L\",\"content\":\"caf\xe9 zuvrelix\"}"},
		{2, 0, "lat2", "{\"title\":\"L\",\"content\":\"caf\xe9 zuvrelix\",}"},
		{0, 0, "x", ``},
	} {
		f.Add(seed.kind, seed.method, seed.id, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, kind, method uint8, id string, body []byte) {
		k := fuzzWriteKinds[int(kind)%len(fuzzWriteKinds)]
		be := fuzzWriteBackend(t)
		cfg := testConfig(t)
		cfg.Token, cfg.MaxWriteBodyBytes = writeToken, 1024
		s := newServerWith(cfg, nil, be)
		defer s.stopStreams()
		logged := &errorLog{}
		s.log = slog.New(logged)
		m := http.MethodPut
		if method%2 == 1 {
			m = http.MethodDelete
		}
		req := httptest.NewRequest(m, k.prefix+url.PathEscape(id), bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+writeToken)
		rec := serve(s.routes(), req)

		status, out := rec.Code, rec.Body.Bytes()
		if p := req.URL.EscapedPath(); path.Clean(p) != p && p != k.prefix {
			// ServeMux redirects a path with ".", ".." or empty segments
			// to the cleaned one: such IDs cannot be written or deleted.
			if status != http.StatusMovedPermanently && status != http.StatusTemporaryRedirect && status != http.StatusPermanentRedirect {
				t.Fatalf("%s %q: unclean path answered %d: %s", m, p, status, out)
			}
			return
		}
		if len(logged.msgs) > 0 {
			t.Fatalf("%s %q %q: the server logged errors: %q", m, id, body, logged.msgs)
		}
		if status >= 500 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || !json.Valid(out) {
			t.Fatalf("%s %q %q: status %d: %s", m, id, body, status, out)
		}
		var code string
		if status >= 300 {
			var eb errorBody
			if err := json.Unmarshal(out, &eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
				t.Fatalf("status %d without an error code and message: %s", status, out)
			}
			code = eb.Error.Code
		}
		ctx := context.Background()
		owner := storage.OwnerRef{Kind: k.kind, ID: id}
		stored := func() bool {
			ok, err := s.exists(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if m == http.MethodDelete {
			if status == http.StatusOK {
				if refs, err := be.store.ChunkRefs(ctx, k.kind, []string{id}); err != nil || len(refs) > 0 {
					t.Fatalf("deleted %s %q keeps %d chunks (%v)", k.kind, id, len(refs), err)
				}
				if stored() {
					t.Fatalf("deleted %s %q still exists", k.kind, id)
				}
			}
			return
		}
		derr := strictDecode(body, k.body())
		switch {
		case len(body) > 1024:
			if code != codeBodyTooLarge && code != codeInvalidJSON && code != codeInvalidField {
				t.Fatalf("%d-byte body over the limit answered %d %q", len(body), status, code)
			}
			return
		case !utf8.Valid(body) && code != codeInvalidField:
			// Decided on the raw bytes, before JSON: never U+FFFD.
			if status != http.StatusBadRequest || code != codeInvalidEncoding {
				t.Fatalf("a body that is not UTF-8 %q answered %d %q", body, status, code)
			}
			return
		case code == codeInvalidEncoding:
			t.Fatalf("a UTF-8 body %q answered invalid_encoding: %s", body, out)
		case derr != nil && code != codeInvalidField:
			// An invalid ID in the path is refused before the body is read.
			if status != http.StatusBadRequest || code != codeInvalidJSON {
				t.Fatalf("undecodable body %q (%v) answered %d %q", body, derr, status, code)
			}
			return
		case derr == nil && code == codeInvalidJSON:
			t.Fatalf("decodable body %q answered invalid_json: %s", body, out)
		}
		if status != http.StatusOK && status != http.StatusCreated {
			return
		}
		if !stored() {
			t.Fatalf("PUT %s %q answered %d but stored nothing", k.kind, id, status)
		}
		refs, err := be.store.ChunkRefs(ctx, k.kind, []string{id})
		if err != nil || len(refs) == 0 {
			t.Fatalf("PUT %s %q: %d chunks (%v)", k.kind, id, len(refs), err)
		}
		for _, r := range refs {
			if !r.HasEmbedding {
				t.Fatalf("PUT %s %q: chunk %s/%d without an embedding", k.kind, id, r.Source, r.Seq)
			}
		}
	})
}
