package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hybridrag/hybridrag/storage/memory"
)

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings endpoint that
// records the size and "dimensions" of every request.
type fakeEmbeddings struct {
	mu     sync.Mutex
	inputs []int // texts per request
	dims   []int // "dimensions" per request
	models []string
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input      []string `json:"input"`
		Model      string   `json:"model"`
		Dimensions int      `json:"dimensions"`
	}
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, len(req.Input))
	f.dims = append(f.dims, req.Dimensions)
	f.models = append(f.models, req.Model)
	f.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	data := make([]item, len(req.Input))
	for i := range data {
		v := make([]float64, req.Dimensions)
		v[(i+len(req.Input[i]))%len(v)] = 1
		data[i] = item{"embedding", i, v}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1},
	})
}

func (f *fakeEmbeddings) stats() (requests, texts, maxBatch int, dims map[int]bool, models map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dims, models = map[int]bool{}, map[string]bool{}
	for i, n := range f.inputs {
		texts += n
		maxBatch = max(maxBatch, n)
		dims[f.dims[i]] = true
		models[f.models[i]] = true
	}
	return len(f.inputs), texts, maxBatch, dims, models
}

// writeCatalog writes n catalog items as JSONL and returns the file.
func writeCatalog(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"p%d","name":"Produto %d","description":"Fungicida para café, lote %d."}`+"\n", i, i, i)
	}
	path := filepath.Join(t.TempDir(), "catalog.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func snapshotDims(t *testing.T, path string) int {
	t.Helper()
	db, err := memory.LoadFile(path, memory.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return db.Dimensions()
}

// TestIngestEmbeddingEnv: EMBEDDING_BATCH_SIZE bounds the texts of every
// embedding request and EMBEDDING_DIMENSIONS sets the vector size (sent as
// "dimensions", and the snapshot's); -batch-size and -dims win over them.
func TestIngestEmbeddingEnv(t *testing.T) {
	catalog := writeCatalog(t, 7)
	tests := []struct {
		name         string
		env          map[string]string
		flags        []string
		wantBatch    int // largest request
		wantDims     int
		wantModel    string
		wantRequests int
		wantEmbedded int
		wantSnapshot int
	}{
		{name: "variables", env: map[string]string{"EMBEDDING_BATCH_SIZE": "3", "EMBEDDING_DIMENSIONS": "8", "EMBEDDING_MODEL": "emb-x"},
			wantBatch: 3, wantDims: 8, wantModel: "emb-x", wantRequests: 3, wantEmbedded: 7, wantSnapshot: 8},
		{name: "flags win", env: map[string]string{"EMBEDDING_BATCH_SIZE": "3", "EMBEDDING_DIMENSIONS": "8"}, flags: []string{"-batch-size", "2", "-dims", "4"},
			wantBatch: 2, wantDims: 4, wantModel: "text-embedding-3-small", wantRequests: 4, wantEmbedded: 7, wantSnapshot: 4},
		{name: "defaults", env: map[string]string{}, flags: []string{"-dims", "6"},
			wantBatch: 7, wantDims: 6, wantModel: "text-embedding-3-small", wantRequests: 1, wantEmbedded: 7, wantSnapshot: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeEmbeddings{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			env := map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL + "/v1"}
			for k, v := range tc.env {
				env[k] = v
			}
			snap := filepath.Join(t.TempDir(), "out.snap")
			args := append([]string{"-catalog", catalog, "-memfile", snap, "-embedder", "openai", "-concurrency", "1", "-progress", "none"}, tc.flags...)
			code, out, errOut := runIngestEnv(t, env, args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if s := summary(t, out); s["embedded"] != tc.wantEmbedded {
				t.Errorf("summary %v, want embedded=%d", s, tc.wantEmbedded)
			}
			requests, texts, maxBatch, dims, models := fake.stats()
			if requests != tc.wantRequests || texts != tc.wantEmbedded || maxBatch != tc.wantBatch {
				t.Errorf("%d requests of %d texts (largest %d), want %d requests of %d (largest %d)", requests, texts, maxBatch, tc.wantRequests, tc.wantEmbedded, tc.wantBatch)
			}
			if len(dims) != 1 || !dims[tc.wantDims] || len(models) != 1 || !models[tc.wantModel] {
				t.Errorf("dimensions sent %v, models %v; want only %d and %q", dims, models, tc.wantDims, tc.wantModel)
			}
			if got := snapshotDims(t, snap); got != tc.wantSnapshot {
				t.Errorf("snapshot dimensions %d, want %d", got, tc.wantSnapshot)
			}
		})
	}
}

// TestIngestEmbeddingDimensionsHash: EMBEDDING_DIMENSIONS also sizes the
// offline hash embedder's vectors, and a snapshot of other dimensions is
// refused rather than mixed.
func TestIngestEmbeddingDimensionsHash(t *testing.T) {
	catalog := writeCatalog(t, 2)
	snap := filepath.Join(t.TempDir(), "out.snap")
	env := map[string]string{"EMBEDDING_DIMENSIONS": "32"}
	if code, _, errOut := runIngestEnv(t, env, "-catalog", catalog, "-memfile", snap, "-progress", "none"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if got := snapshotDims(t, snap); got != 32 {
		t.Errorf("snapshot dimensions %d, want 32", got)
	}
	env["EMBEDDING_DIMENSIONS"] = "64"
	if code, _, errOut := runIngestEnv(t, env, "-catalog", catalog, "-memfile", snap, "-progress", "none"); code != exitError {
		t.Errorf("64 dimensions into a 32-dimension snapshot: exit %d, want %d\n%s", code, exitError, errOut)
	}
}

// TestIngestEmbeddingEnvInvalid: a bad value is a usage error naming the
// variable, before any file is read.
func TestIngestEmbeddingEnvInvalid(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"batch size not a number", map[string]string{"EMBEDDING_BATCH_SIZE": "dezesseis"}, nil, `EMBEDDING_BATCH_SIZE="dezesseis": not an integer`},
		{"batch size zero", map[string]string{"EMBEDDING_BATCH_SIZE": "0"}, nil, `EMBEDDING_BATCH_SIZE="0": 0 out of range [1, 2048]`},
		{"batch size too large", map[string]string{"EMBEDDING_BATCH_SIZE": "5000"}, nil, "EMBEDDING_BATCH_SIZE"},
		{"dimensions negative", map[string]string{"EMBEDDING_DIMENSIONS": "-8"}, nil, `EMBEDDING_DIMENSIONS="-8"`},
		{"dimensions not a number", map[string]string{"EMBEDDING_DIMENSIONS": "1536d"}, nil, `EMBEDDING_DIMENSIONS="1536d": not an integer`},
		{"negative -batch-size", nil, []string{"-batch-size", "-1"}, "-batch-size -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := filepath.Join(t.TempDir(), "out.snap")
			args := append([]string{"-catalog", filepath.Join(t.TempDir(), "none.jsonl"), "-memfile", snap}, tc.args...)
			code, out, errOut := runIngestEnv(t, tc.env, args...)
			if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 mentioning %q", code, out, errOut, tc.want)
			}
		})
	}
}
