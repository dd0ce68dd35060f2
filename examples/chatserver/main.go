package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil)
	stop()
	os.Exit(code)
}

// run is the whole command: it parses the configuration, opens the
// backend, serves until ctx is done and shuts down gracefully. ready, when
// set, receives the listening address (tests). It returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, ready chan<- string) int {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "chatserver: %v\n", err)
		return exitUsage
	}
	level := slog.LevelInfo
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	start := time.Now()
	srv, err := newServer(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "chatserver: %v\n", err)
		return exitError
	}
	defer srv.close()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "chatserver: %v\n", err)
		return exitError
	}
	log.Info(startupLine(srv, ln.Addr().String(), time.Since(start)))
	if msg := trustProxyWarning(cfg); msg != "" {
		log.Warn(msg, "trusted_hops", cfg.TrustedHops)
	}
	if ready != nil {
		ready <- ln.Addr().String()
	}

	hs := srv.httpServer(cfg.Addr)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "chatserver: %v\n", err)
		return exitError
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "error", err)
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("serve", "error", err)
	}
	return exitOK
}

// startupLine is the one line saying what runs and how to switch.
func startupLine(s *server, addr string, took time.Duration) string {
	c := s.be.info
	ix := s.be.index
	seeded := "used as is"
	if ix.Seeded {
		seeded = fmt.Sprintf("indexed %d items, %d FAQs, %d documents (%d chunks)", ix.Items, ix.FAQs, ix.Documents, ix.Chunks)
	}
	var sw string
	switch {
	case c.Store == storeMemoryFallback:
		sw = "PostgreSQL was unreachable at start (-fallback-memory): this is an in-memory copy of the testdata; restart once PostgreSQL answers"
	case c.Store == "memory" && c.ChatModel == "":
		sw = "set DATABASE_URL for Postgres+pgvector (migrated, seeded from testdata when empty); set OPENAI_API_KEY (OPENAI_BASE_URL, OPENAI_MODEL, EMBEDDING_MODEL) or OPENROUTER_API_KEY for real models"
	case c.Store == "memory":
		sw = "set DATABASE_URL for Postgres+pgvector (migrated, seeded from testdata when empty)"
	case c.ChatModel == "":
		sw = "set OPENAI_API_KEY (OPENAI_BASE_URL, OPENAI_MODEL, EMBEDDING_MODEL) or OPENROUTER_API_KEY for real models"
	default:
		sw = "unset DATABASE_URL and the API keys for the offline demo"
	}
	auth := ""
	if s.cfg.Token != "" {
		auth = ", bearer token required on /api/ (write API on)"
	}
	return fmt.Sprintf("chatserver: http://%s — store=%s (%s) embedder=%s classifier=%s answerer=%s reranker=%s; ready in %s%s; to switch: %s",
		displayAddr(addr), c.Store, seeded, c.Embedder, c.Classifier, c.Answerer, c.Reranker, took.Round(time.Millisecond), auth, sw)
}

// displayAddr turns a wildcard listen address into a clickable one.
func displayAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// trustProxyWarning is the start-up warning of -trust-proxy (or
// -trusted-hops) without -trusted-proxies, "" otherwise: X-Forwarded-For
// is then believed from any peer, and a client reaching the port directly
// can write as many addresses as -trusted-hops and pick its rate-limit
// bucket.
func trustProxyWarning(cfg config) string {
	if !cfg.TrustProxy || len(cfg.TrustedProxies) > 0 {
		return ""
	}
	return "-trust-proxy without -trusted-proxies: X-Forwarded-For is believed from any peer, so a client " +
		"reaching this port directly can choose the address it is rate-limited on; give -trusted-proxies " +
		"(the proxies' CIDRs) or let only the proxy reach the port"
}
