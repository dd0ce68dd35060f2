package main

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hybridrag/hybridrag/storage"
)

// web holds the chat page: plain HTML, CSS and JavaScript, no build step.
//
//go:embed web
var web embed.FS

// Server timeouts. WriteTimeout bounds non-streaming responses; SSE
// streams move their write deadline forward before every event instead
// (http.ResponseController), so a long answer is not cut off.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 16 << 10
	sseWriteTimeout   = 15 * time.Second
	healthTimeout     = 2 * time.Second
)

// contentSecurityPolicy allows the embedded page and nothing else.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// server is the HTTP layer over a backend. It is safe for concurrent use.
type server struct {
	cfg     config
	log     *slog.Logger
	be      *backend
	limiter *ipLimiter // nil: no rate limit
	// pending holds the confirmations agentic turns wait for, by ID.
	pending *confirmations
	// metrics are served on /metrics (metrics.go).
	metrics *httpMetrics
	clients clientResolver
	static  fs.FS
	started time.Time

	// streams is cancelled when the server shuts down, ending SSE streams
	// (which graceful shutdown would otherwise wait for).
	streams     context.Context
	stopStreams context.CancelFunc

	// writeLocks serializes the writes of one record (two Indexer runs
	// over the same record would race like any two writers); writes of
	// different records run concurrently.
	writeLocks recordLocks

	requests, serverErrors, rateLimited, chats, streamsServed, searches, writes atomic.Int64
}

// newServer opens the backend cfg selects and returns the server over it.
func newServer(ctx context.Context, cfg config, log *slog.Logger) (*server, error) {
	be, err := openBackend(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	return newServerWith(cfg, log, be), nil
}

// newServerWith returns a server over an opened backend.
func newServerWith(cfg config, log *slog.Logger, be *backend) *server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	static, err := fs.Sub(web, "web")
	if err != nil { // cannot happen: the directory is embedded
		panic(err)
	}
	s := &server{cfg: cfg, log: log, be: be, static: static, started: time.Now(), clients: newClientResolver(cfg),
		pending: newConfirmations(maxPendingConfirmations, maxPendingPerClient)}
	if cfg.Rate > 0 {
		s.limiter = newIPLimiter(cfg.Rate, cfg.Burst, cfg.RateClients)
	}
	s.streams, s.stopStreams = context.WithCancel(context.Background())
	s.metrics = newHTTPMetrics(s)
	return s
}

// close ends open streams and releases the backend.
func (s *server) close() {
	s.stopStreams()
	s.be.close()
}

// httpServer returns the http.Server serving s on addr.
func (s *server) httpServer(addr string) *http.Server {
	hs := &http.Server{
		Addr:              addr,
		Handler:           s.routes(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      s.cfg.ChatTimeout + 15*time.Second,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.stopStreams)
	return hs
}

// routes returns the server's handler. The ServeMux matches method and
// path: a path it knows asked with another method is 405 with an Allow
// header, an unknown path 404 (GET routes answer HEAD too); under /api/
// both come in the API's JSON error shape (method_not_allowed,
// not_found), elsewhere as the mux's plain text. CORS wraps the mux so
// that a preflight OPTIONS reaches no route.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /api/chat", s.guard(false, s.handleChat))
	mux.Handle("POST /api/rag/search", s.guard(false, s.handleSearch))
	mux.Handle("POST /api/faq/search", s.guard(false, s.handleFAQSearch))
	mux.Handle("POST /api/catalog/assist", s.guard(false, s.handleAssist))
	mux.Handle("GET /api/stats", s.guard(false, s.handleStats))
	for path, h := range map[string]http.Handler{
		"items":     s.writeAPI(storage.KindItem, s.putItem),
		"faqs":      s.writeAPI(storage.KindFAQ, s.putFAQ),
		"documents": s.writeAPI(storage.KindDocument, s.putDocument),
	} {
		mux.Handle("PUT /api/"+path+"/{id...}", h)
		mux.Handle("DELETE /api/"+path+"/{id...}", h)
	}
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.Handle("GET /metrics", s.handleMetrics())
	page := s.page()
	mux.Handle("GET /{$}", page)
	_ = fs.WalkDir(s.static, ".", func(p string, d fs.DirEntry, err error) error { // an embedded tree
		if err == nil && !d.IsDir() {
			mux.Handle("GET /"+p, page)
		}
		return nil
	})
	return s.observe(s.recoverer(s.cors(apiErrors(mux))))
}

// apiErrors answers the ServeMux's own 404 and 405 for /api/ paths in the
// API's JSON error shape, keeping the Allow header of a 405.
func apiErrors(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" || !strings.HasPrefix(r.URL.Path, "/api/") {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &muxReply{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusMethodNotAllowed {
			allow := rec.header.Get("Allow")
			w.Header().Set("Allow", allow)
			writeError(w, errorf(http.StatusMethodNotAllowed, codeMethodNotAllowed, "%s is not allowed on %s; use %s", r.Method, r.URL.Path, allow))
			return
		}
		writeError(w, errorf(http.StatusNotFound, codeNotFound, "no API route %s %s", r.Method, r.URL.Path))
	})
}

// muxReply keeps the status and headers a handler writes and
// discards its body.
type muxReply struct {
	header http.Header
	status int
}

func (r *muxReply) Header() http.Header         { return r.header }
func (r *muxReply) Write(b []byte) (int, error) { return len(b), nil }
func (r *muxReply) WriteHeader(status int)      { r.status = status }

// guard wraps an API handler: rate limit, the write API's token
// requirement (write: refused with 403 writes_disabled unless a bearer
// token is configured), bearer token and body limit (-max-write-body for
// writes, else -max-body), in that order (rate limiting first also slows
// token guessing).
func (s *server) guard(write bool, h http.HandlerFunc) http.Handler {
	limit := s.cfg.MaxBodyBytes
	if write {
		limit = s.cfg.MaxWriteBodyBytes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limiter != nil {
			if ok, wait := s.limiter.allow(s.clients.clientAddr(r)); !ok {
				s.rateLimited.Add(1)
				e := errorf(http.StatusTooManyRequests, codeRateLimited, "too many requests; retry later")
				e.RetryAfter = wait
				writeError(w, e)
				return
			}
		}
		if write && s.cfg.Token == "" {
			writeError(w, errorf(http.StatusForbidden, codeWritesDisabled,
				"the write API is off: start the server with -token or CHAT_TOKEN to enable it"))
			return
		}
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hybridrag"`)
			writeError(w, errorf(http.StatusUnauthorized, codeUnauthorized, "missing or invalid bearer token"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		h(w, r)
	})
}

// authorized checks the bearer token, when one is configured.
func (s *server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.cfg.Token)) == 1
}

// cors adds CORS headers to /api/ responses for the configured origin and
// answers preflight requests. Without -cors-origin it does nothing:
// browsers then refuse cross-origin calls.
func (s *server) cors(h http.Handler) http.Handler {
	if s.cfg.CORSOrigin == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && (s.cfg.CORSOrigin == "*" || origin == s.cfg.CORSOrigin) && strings.HasPrefix(r.URL.Path, "/api/") {
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", s.cfg.CORSOrigin)
			hd.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				hd.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
				hd.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Accept")
				hd.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// page serves the embedded chat page.
func (s *server) page() http.Handler {
	files := http.FileServerFS(s.static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a 500 JSON error; the stack goes to the
// log, never to the client. It runs inside observe, so w is the
// statusRecorder and a panic after the headers were sent adds nothing.
func (s *server) recoverer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as documented
				panic(v)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			if rec, ok := w.(*statusRecorder); ok && rec.status != 0 {
				return // headers already sent; nothing sensible to add
			}
			writeError(w, errorf(http.StatusInternalServerError, codeInternal, "internal error"))
		}()
		h.ServeHTTP(w, r)
	})
}

// observe sets the common headers, counts requests and 5xx responses, and
// logs each request with -v.
func (s *server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		rec := &statusRecorder{ResponseWriter: w}
		s.requests.Add(1)
		defer func() {
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			// 501 (a feature needing a model, offline) is the server
			// answering as designed, not a server error.
			if status >= 500 && status != http.StatusNotImplemented {
				s.serverErrors.Add(1)
			}
			s.metrics.observeRequest(r, status, time.Since(start))
			if s.cfg.Verbose {
				s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", status,
					"duration", time.Since(start).Round(time.Microsecond), "client", s.clients.clientIP(r))
			}
		}()
		h.ServeHTTP(rec, r)
	})
}

// statusRecorder remembers the response status. Unwrap lets
// http.ResponseController reach the connection (flush, deadlines).
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// isCanceled reports a context error.
func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
