package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
)

// /api/stats counts the chunks by source (adding up to the chunk count),
// says which reranker runs and how old the query cache's entries are.
func TestStatsBySourceRerankerCacheAges(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	if rec := do(t, h, "POST", "/api/rag/search", `{"query":"adubo foliar para café unique-ages"}`); rec.Code != 200 {
		t.Fatalf("search: %d", rec.Code)
	}
	st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", ""))
	if st.Counts == nil {
		t.Fatalf("no counts: %s", st.CountsError)
	}
	var chunks, embedded int
	for _, c := range st.Counts.ChunksBySource {
		chunks += c.Chunks
		embedded += c.Embedded
	}
	if chunks != st.Counts.Chunks || embedded != st.Counts.Embedded {
		t.Errorf("by source %+v adds up to %d chunks (%d embedded), want %d (%d)", st.Counts.ChunksBySource, chunks, embedded, st.Counts.Chunks, st.Counts.Embedded)
	}
	for _, src := range []string{"item", "file", "answer", "doc"} {
		if st.Counts.ChunksBySource[src].Chunks == 0 {
			t.Errorf("no %s chunks in %+v", src, st.Counts.ChunksBySource)
		}
	}
	if st.Reranker != (rerankerStats{Name: "off"}) {
		t.Errorf("reranker %+v, want off and unavailable", st.Reranker)
	}
	c := st.Cache
	if c.Entries == 0 || c.OldestAgeSeconds < c.NewestAgeSeconds || c.NewestAgeSeconds < 0 {
		t.Errorf("cache %+v", c)
	}

	h = newTestServer(t, nil, func(be *backend) { be.info.Reranker = string(rerankKeyword) }).routes()
	if st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", "")); st.Reranker != (rerankerStats{Name: "keyword", Available: true}) {
		t.Errorf("reranker %+v, want keyword, available", st.Reranker)
	}
}

// closedPortDSN points at a port nothing listens on, with a password the
// logs must not show.
const closedPortDSN = "postgres://hr_admin:pw-s3cret@127.0.0.1:1/shop_prod_db?sslmode=disable&connect_timeout=2"

// With -fallback-memory an unreachable PostgreSQL at start is a loud
// warning and a memory store seeded from the testdata, which /api/stats
// names; without it the start fails.
func TestFallbackMemory(t *testing.T) {
	cfg := testConfig(t)
	cfg.Env.DatabaseURL = closedPortDSN
	if _, err := openBackend(context.Background(), cfg, nil); err == nil || !isConnectionError(err) {
		t.Fatalf("without -fallback-memory: %v, want a connection error", err)
	}

	cfg.FallbackMemory = true
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	be, err := openBackend(context.Background(), cfg, log)
	if err != nil {
		t.Fatalf("with -fallback-memory: %v", err)
	}
	defer be.close()
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "FALLING BACK TO THE MEMORY STORE") {
		t.Errorf("the fallback is not logged loudly:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "pw-s3cret") {
		t.Errorf("the log shows the password:\n%s", logs.String())
	}
	s := newServerWith(cfg, log, be)
	h := s.routes()
	st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", ""))
	if st.Components.Store != storeMemoryFallback || st.Counts == nil || st.Counts.Items != 81 || !st.Index.Seeded {
		t.Errorf("stats: store %q, counts %+v, index %+v", st.Components.Store, st.Counts, st.Index)
	}
	r := decode[searchResponse](t, do(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira"}`))
	if r.Store != storeMemory || len(r.Hits) == 0 || r.PGVector {
		t.Errorf("search: store %q, %d hits, pgvector %v", r.Store, len(r.Hits), r.PGVector)
	}
	if line := startupLine(s, "127.0.0.1:8080", 0); !strings.Contains(line, "store="+storeMemoryFallback) || !strings.Contains(line, "unreachable") {
		t.Errorf("start-up line: %s", line)
	}
}

func TestFallbackMemoryConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want bool
	}{
		{"default off", nil, nil, false},
		{"flag", []string{"-fallback-memory"}, nil, true},
		{"variable", nil, map[string]string{envFallbackMemory: "1"}, true},
		{"variable false", nil, map[string]string{envFallbackMemory: "false"}, false},
		{"the flag wins", []string{"-fallback-memory=false"}, map[string]string{envFallbackMemory: "true"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfig(tc.args, env(tc.env), io.Discard)
			if err != nil || cfg.FallbackMemory != tc.want {
				t.Errorf("FallbackMemory %v, %v; want %v", cfg.FallbackMemory, err, tc.want)
			}
		})
	}
	_, err := parseConfig(nil, env(map[string]string{envFallbackMemory: "sometimes"}), io.Discard)
	var ee *settings.EnvError
	if !errors.As(err, &ee) || ee.Var != envFallbackMemory {
		t.Errorf("bad FALLBACK_MEMORY: %v, want an EnvError naming it", err)
	}
}
