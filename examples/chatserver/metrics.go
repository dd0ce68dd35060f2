package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
)

// metricsNamespace prefixes every metric of the server.
const metricsNamespace = "chatserver"

// latencyBuckets span a lexical leg on the memory store (about a
// millisecond) to a chat turn with a remote model (tens of seconds).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// searchMetrics are the metrics fed by the Searcher's tracer: search and
// leg latencies, fallbacks and store errors. They belong to the backend
// (one Searcher), and each server over it registers them. A searchMetrics
// is a trace.SearchTracer and trace.LegTracer, safe for concurrent use.
type searchMetrics struct {
	search      *prometheus.HistogramVec
	leg         *prometheus.HistogramVec
	fallbacks   *prometheus.CounterVec
	storeErrors *prometheus.CounterVec
}

func newSearchMetrics() *searchMetrics {
	m := &searchMetrics{
		search: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "search_duration_seconds",
			Help:    "Duration of the searches (the search API's and each search of a chat turn), by record kind (item, faq, document).",
			Buckets: latencyBuckets,
		}, []string{"kind"}),
		leg: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "search_leg_duration_seconds",
			Help:    "Duration of each retrieval leg of a search (lexical; vector: query embedding and chunk search), by record kind and leg.",
			Buckets: latencyBuckets,
		}, []string{"kind", "leg"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "search_fallbacks_total",
			Help: "Searches answered by the lexical leg alone, by record kind and reason (embedding-disabled, embedding-generation-failed, vector-query-error).",
		}, []string{"kind", "reason"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "store_errors_total",
			Help: "Store errors seen by searches: operation=search (the search failed), operation=vector_search (the vector leg failed; the search went on lexically).",
		}, []string{"operation"}),
	}
	return m.init0()
}

// init0 creates the series that would otherwise appear only with their
// first event, so that a scrape shows them at 0.
func (m *searchMetrics) init0() *searchMetrics {
	for _, op := range []string{"search", "vector_search"} {
		m.storeErrors.WithLabelValues(op)
	}
	return m
}

// collectors returns the metrics to register.
func (m *searchMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.search, m.leg, m.fallbacks, m.storeErrors}
}

// withSearchMetrics returns the Searcher's tracer feeding m beside t (nil:
// m alone).
func withSearchMetrics(t trace.SearchTracer, m *searchMetrics) trace.SearchTracer {
	if t == nil {
		return m
	}
	return trace.NewMulti(t, m)
}

// metricsSpan is what a Start puts in the context for its End: the
// record kind, the leg (legs only) and the start time. A leg's value
// shadows its search's.
type metricsSpan struct {
	kind, leg string
	start     time.Time
}

type metricsSpanKey struct{}

// spanOf returns the metricsSpan in ctx.
func spanOf(ctx context.Context) (metricsSpan, bool) {
	sp, ok := ctx.Value(metricsSpanKey{}).(metricsSpan)
	return sp, ok
}

// TraceSearchStart notes the search's kind and start.
func (m *searchMetrics) TraceSearchStart(ctx context.Context, d trace.SearchStartData) context.Context {
	return context.WithValue(ctx, metricsSpanKey{}, metricsSpan{kind: string(d.Kind), start: time.Now()})
}

// TraceSearchEnd observes the search's duration, fallback and store
// error.
func (m *searchMetrics) TraceSearchEnd(ctx context.Context, d trace.SearchEndData) {
	sp, ok := spanOf(ctx)
	if !ok {
		return
	}
	m.search.WithLabelValues(sp.kind).Observe(time.Since(sp.start).Seconds())
	if d.FallbackReason != "" {
		m.fallbacks.WithLabelValues(sp.kind, d.FallbackReason).Inc()
	}
	if isStoreError(d.Err) {
		m.storeErrors.WithLabelValues("search").Inc()
	}
}

// TraceLegStart notes the leg's kind, name and start.
func (m *searchMetrics) TraceLegStart(ctx context.Context, d trace.LegStartData) context.Context {
	return context.WithValue(ctx, metricsSpanKey{}, metricsSpan{kind: string(d.Kind), leg: d.Leg, start: time.Now()})
}

// TraceLegEnd observes the leg's duration and a failed vector query.
func (m *searchMetrics) TraceLegEnd(ctx context.Context, d trace.LegEndData) {
	sp, ok := spanOf(ctx)
	if !ok {
		return
	}
	m.leg.WithLabelValues(sp.kind, sp.leg).Observe(time.Since(sp.start).Seconds())
	if d.FallbackReason == string(rag.FallbackVectorQueryError) && !isCanceled(d.Err) {
		m.storeErrors.WithLabelValues("vector_search").Inc()
	}
}

// isStoreError reports a search error that is neither the caller's (an
// invalid query or filter) nor a context's.
func isStoreError(err error) bool {
	return err != nil && !isCanceled(err) && !errors.Is(err, rag.ErrEmptyQuery) &&
		!errors.Is(err, rag.ErrInvalidQuery) && !errors.Is(err, storage.ErrInvalidFilter)
}

// httpMetrics are the server's own metrics: requests and latency per
// endpoint and status, chat outcomes, and functions over the server's
// counters (rate-limited requests, the query-embedding cache).
type httpMetrics struct {
	registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	latency         *prometheus.HistogramVec
	abstentions     prometheus.Counter
	answerFallbacks prometheus.Counter
}

// newHTTPMetrics registers s's metrics, the backend's search metrics and
// the Go runtime and process collectors on a registry of s's own.
func newHTTPMetrics(s *server) *httpMetrics {
	m := &httpMetrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by endpoint (the route's pattern) and status code.",
		}, []string{"endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "http_request_duration_seconds",
			Help:    "Duration of the HTTP requests (an SSE chat: the whole stream), by endpoint and status code.",
			Buckets: latencyBuckets,
		}, []string{"endpoint", "code"}),
		abstentions: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "chat_abstentions_total",
			Help: "Chat turns that abstained: nothing in the store was relevant enough to answer from.",
		}),
		answerFallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "chat_answer_fallbacks_total",
			Help: "Chat turns answered with the fallback message because the answerer failed or answered nothing.",
		}),
	}
	cs := []prometheus.Collector{
		m.requests, m.latency, m.abstentions, m.answerFallbacks,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "rate_limited_total",
			Help: "API requests refused with 429 by the per-client rate limit (-rate, -burst).",
		}, func() float64 { return float64(s.rateLimited.Load()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	if c := s.be.cache; c != nil {
		cs = append(cs,
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: metricsNamespace, Name: "embedding_cache_hits_total",
				Help: "Query embeddings found in the query-embedding cache.",
			}, func() float64 { return float64(c.Stats().Hits) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: metricsNamespace, Name: "embedding_cache_misses_total",
				Help: "Query embeddings not in the query-embedding cache (sent to the embedder).",
			}, func() float64 { return float64(c.Stats().Misses) }),
		)
	}
	if sm := s.be.searchMetrics; sm != nil {
		cs = append(cs, sm.collectors()...)
	}
	for _, c := range cs {
		// A fresh registry and distinct names: Register cannot fail.
		_ = m.registry.Register(c)
	}
	return m
}

// observeRequest counts one answered request.
func (m *httpMetrics) observeRequest(r *http.Request, status int, took time.Duration) {
	endpoint := r.Pattern // "POST /api/chat": the path is the label
	if _, path, ok := strings.Cut(endpoint, " "); ok {
		endpoint = path
	}
	if endpoint == "" {
		endpoint = "other"
	}
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(endpoint, code).Inc()
	m.latency.WithLabelValues(endpoint, code).Observe(took.Seconds())
}

// observeTurn counts a chat turn's abstention and answer fallback.
func (m *httpMetrics) observeTurn(resp *rag.ChatResponse) {
	if resp == nil {
		return
	}
	if resp.Abstained {
		m.abstentions.Inc()
	}
	if resp.Debug.AnswerFallback {
		m.answerFallbacks.Inc()
	}
}

// handleMetrics serves GET /metrics in the Prometheus text format: off
// the rate limit (a scraper polls from one address), behind the bearer
// token when one is set.
func (s *server) handleMetrics() http.Handler {
	h := promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hybridrag"`)
			writeError(w, errorf(http.StatusUnauthorized, codeUnauthorized, "missing or invalid bearer token"))
			return
		}
		h.ServeHTTP(w, r)
	})
}
