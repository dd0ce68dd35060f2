package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestSearchDocumentIDs: "document_ids" restricts a doc search to those
// documents (both legs), is echoed, and bad lists are typed 400s.
func TestSearchDocumentIDs(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	all := decode[searchResponse](t, do(t, h, "POST", "/api/rag/search", `{"query":"manejo","kind":"doc","limit":20}`))
	if len(all.Hits) < 2 {
		t.Fatalf("unrestricted: %d hits, want at least 2", len(all.Hits))
	}
	want := []string{all.Hits[len(all.Hits)-1].ID}
	ids, _ := json.Marshal(want)
	rec := do(t, h, "POST", "/api/rag/search", `{"query":"manejo","kind":"doc","limit":20,"document_ids":`+string(ids)+`}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	got := decode[searchResponse](t, rec)
	if len(got.Hits) == 0 {
		t.Fatal("no hit")
	}
	for _, hit := range got.Hits {
		if hit.ID != want[0] {
			t.Errorf("hit %s, want only %s", hit.ID, want[0])
		}
	}
	if !slices.Equal(got.DocumentIDs, want) {
		t.Errorf("document_ids echoed %v, want %v", got.DocumentIDs, want)
	}
	if all.DocumentIDs != nil {
		t.Errorf("unrestricted search echoes document_ids %v", all.DocumentIDs)
	}

	many, _ := json.Marshal(slices.Repeat([]string{"doc-001"}, 101))
	for _, tc := range []struct{ name, path, body, code, text string }{
		{"empty ID", "/api/rag/search", `{"query":"manejo","kind":"doc","document_ids":["doc-001",""]}`, codeInvalidField, "document_ids[1]"},
		{"too many", "/api/rag/search", `{"query":"manejo","kind":"doc","document_ids":` + string(many) + `}`, codeInvalidField, "at most 100"},
		{"catalog", "/api/rag/search", `{"query":"soja","document_ids":["doc-001"]}`, codeInvalidField, "document searches only"},
		{"faq", "/api/faq/search", `{"query":"prazo","document_ids":["doc-001"]}`, codeInvalidField, "document searches only"},
		{"not a list", "/api/rag/search", `{"query":"manejo","kind":"doc","document_ids":"doc-001"}`, codeInvalidJSON, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, h, "POST", tc.path, tc.body)
			wantError(t, rec, http.StatusBadRequest, tc.code)
			if !strings.Contains(rec.Body.String(), tc.text) {
				t.Errorf("error %s does not say %q", rec.Body.String(), tc.text)
			}
		})
	}
}
