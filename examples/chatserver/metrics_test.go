package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
)

// scrape parses a Prometheus text exposition into series → value, the
// series written as in the text (name{labels}, labels sorted).
func scrape(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// A few requests, one of them rate-limited, then a scrape of /metrics:
// requests per endpoint and status, latency per search leg, abstentions,
// cache hits and the rate-limited count are there; /metrics is off the
// rate limit and behind the token.
func TestMetricsScrape(t *testing.T) {
	const token = "tok-metrics-0123456789"
	cfg := testConfig(t)
	cfg.Token = token
	cfg.Rate, cfg.Burst = 0.0001, 5 // five API requests, then 429
	be, err := openBackend(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer be.close()
	h := newServerWith(cfg, nil, be).routes()
	auth := []string{"Authorization", "Bearer " + token}

	for i, r := range []struct {
		path, body string
		code       int
	}{
		{"/api/rag/search", `{"query":"fungicida para videira"}`, 200},
		{"/api/chat", `{"message":"tem fungicida para videira?"}`, 200},
		{"/api/chat", `{"message":"vocês vendem ração para cachorro?"}`, 200}, // abstains
		{"/api/rag/search", `{"query":"fungicida para videira"}`, 200},        // the cached embedding
		{"/api/faq/search", `{"query":"preciso de receituário?"}`, 200},
		{"/api/rag/search", `{"query":"fungicida para videira"}`, 429},
	} {
		if rec := do(t, h, "POST", r.path, r.body, auth...); rec.Code != r.code {
			t.Fatalf("request %d %s: %d, want %d: %s", i, r.path, rec.Code, r.code, rec.Body.String())
		}
	}
	if rec := do(t, h, "GET", "/metrics", ""); rec.Code != 401 {
		t.Fatalf("/metrics without the token: %d, want 401", rec.Code)
	}
	rec := do(t, h, "GET", "/metrics", "", auth...)
	if rec.Code != 200 {
		t.Fatalf("/metrics (past the rate limit): %d %s", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q", ct)
	}
	body := rec.Body.String()
	m := scrape(t, body)

	for series, want := range map[string]float64{
		`chatserver_http_requests_total{code="200",endpoint="/api/rag/search"}`:           2,
		`chatserver_http_requests_total{code="429",endpoint="/api/rag/search"}`:           1,
		`chatserver_http_requests_total{code="200",endpoint="/api/chat"}`:                 2,
		`chatserver_http_requests_total{code="200",endpoint="/api/faq/search"}`:           1,
		`chatserver_http_requests_total{code="401",endpoint="/metrics"}`:                  1,
		`chatserver_http_request_duration_seconds_count{code="200",endpoint="/api/chat"}`: 2,
		`chatserver_rate_limited_total`:                                                   1,
		`chatserver_chat_abstentions_total`:                                               1,
		`chatserver_chat_answer_fallbacks_total`:                                          0,
		`chatserver_store_errors_total{operation="search"}`:                               0,
		`chatserver_store_errors_total{operation="vector_search"}`:                        0,
	} {
		if got, ok := m[series]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
		}
	}
	// Each search ran both legs: the search API's two and each chat
	// turn's planned searches.
	for _, leg := range []string{trace.LegLexical, trace.LegVector} {
		items := m[fmt.Sprintf(`chatserver_search_leg_duration_seconds_count{kind="item",leg="%s"}`, leg)]
		faqs := m[fmt.Sprintf(`chatserver_search_leg_duration_seconds_count{kind="faq",leg="%s"}`, leg)]
		if items < 3 || faqs < 1 {
			t.Errorf("%s leg: %v item and %v faq observations, want at least 3 and 1", leg, items, faqs)
		}
	}
	if n := m[`chatserver_search_duration_seconds_count{kind="item"}`]; n < 3 {
		t.Errorf("%v item searches observed, want at least 3", n)
	}
	if hits := m[`chatserver_embedding_cache_hits_total`]; hits < 1 {
		t.Errorf("%v cache hits after a repeated search", hits)
	}
	if _, ok := m[`go_goroutines`]; !ok {
		t.Error("no Go runtime metrics")
	}
	if strings.Contains(body, "fungicida") {
		t.Error("a query text reached the metrics")
	}
	if testing.Verbose() {
		for line := range strings.Lines(body) {
			if strings.HasPrefix(line, "chatserver_") && !strings.Contains(line, "_bucket{") {
				t.Log(strings.TrimSpace(line))
			}
		}
	}
}

// Without a token, /metrics is open like the rest of the read API.
func TestMetricsWithoutToken(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	rec := do(t, h, "GET", "/metrics", "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "chatserver_rate_limited_total") {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(t, h, "POST", "/metrics", ""); rec.Code != 405 {
		t.Errorf("POST /metrics: %d, want 405", rec.Code)
	}
}

// Store errors are the searches' errors that are neither the caller's nor
// a context's, and the vector legs that failed on the store.
func TestStoreErrorMetrics(t *testing.T) {
	m := newSearchMetrics()
	search := func(err error) {
		ctx := m.TraceSearchStart(context.Background(), trace.SearchStartData{Kind: storage.KindItem})
		m.TraceSearchEnd(ctx, trace.SearchEndData{Err: err})
	}
	search(errors.New("postgres: connection refused"))
	search(fmt.Errorf("%w: limit", rag.ErrInvalidQuery))
	search(context.Canceled)
	search(nil)
	ctx := m.TraceLegStart(context.Background(), trace.LegStartData{Kind: storage.KindFAQ, Leg: trace.LegVector})
	m.TraceLegEnd(ctx, trace.LegEndData{FallbackReason: string(rag.FallbackVectorQueryError), Err: errors.New("boom")})

	if got := testutil.ToFloat64(m.storeErrors.WithLabelValues("search")); got != 1 {
		t.Errorf("search store errors = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.storeErrors.WithLabelValues("vector_search")); got != 1 {
		t.Errorf("vector_search store errors = %v, want 1", got)
	}
	if got := testutil.CollectAndCount(m.search); got != 1 {
		t.Errorf("%d search duration series, want 1 (kind=item)", got)
	}
}
