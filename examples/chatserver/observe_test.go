package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// The server's logger gets one "rag search" record per search (counts,
// timings, fallback reason) and the audit of each chat search ("rag tool
// payload"), at info level without -v; the bearer token never reaches the
// log, not even with -v.
func TestSearchAndAuditLogs(t *testing.T) {
	const token = "tok-s3cret-0123456789"
	cfg := testConfig(t)
	cfg.Token, cfg.Verbose = token, true
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	be, err := openBackend(context.Background(), cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer be.close()
	h := newServerWith(cfg, log, be).routes()
	auth := []string{"Authorization", "Bearer " + token}

	count := func(msg string) int {
		return strings.Count(logs.String(), `msg="`+msg+`"`)
	}
	if rec := do(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira"}`, auth...); rec.Code != 200 {
		t.Fatalf("search: %d %s", rec.Code, rec.Body.String())
	}
	if n := count("rag search"); n != 1 {
		t.Fatalf("%d rag search records after one search:\n%s", n, logs.String())
	}
	for _, want := range []string{"kind=item", `query="fungicida para videira"`, "results=", "lexical_count=", "vector_count=",
		"embedding_used=true", "fallback_reason=", "timings.total="} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the search record lacks %s:\n%s", want, logs.String())
		}
	}

	rec := do(t, h, "POST", "/api/chat", `{"message":"tem fungicida para videira?"}`, auth...)
	if rec.Code != 200 {
		t.Fatalf("chat: %d %s", rec.Code, rec.Body.String())
	}
	r := decode[chatResponse](t, rec)
	if n, want := count("rag search"), 1+len(r.Tools); n != want {
		t.Errorf("%d rag search records, want %d (one per search)", n, want)
	}
	if count("rag tool payload") == 0 {
		t.Errorf("no audit record of the chat's searches:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the log shows the bearer token:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("error records:\n%s", logs.String())
	}
}
