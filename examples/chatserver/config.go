package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// Defaults of the command-line flags.
const (
	defaultAddr            = ":8080"
	defaultTenant          = "default"
	defaultRate            = 5.0
	defaultBurst           = 20
	defaultMaxBodyBytes    = 64 << 10
	defaultMaxMessageChars = 2000
	defaultMaxHistoryTurns = 50
	defaultMaxTurnChars    = 4000
	defaultMaxQueryChars   = 1000
	defaultChatTimeout     = 60 * time.Second
	defaultSearchTimeout   = 10 * time.Second
	defaultHeartbeat       = 10 * time.Second
	defaultShutdownTimeout = 10 * time.Second
)

// config is the server's configuration: command-line flags plus the
// environment variables that choose the components.
type config struct {
	// Addr is the listen address (-addr).
	Addr string
	// Testdata is the directory holding catalog.jsonl, faqs.jsonl,
	// documents/ and documents.jsonl (-testdata); empty means "look for
	// testdata/ from the working directory upwards".
	Testdata string
	// Tenant scopes the store (-tenant).
	Tenant string
	// Schema is the PostgreSQL schema with DATABASE_URL (-schema).
	Schema string
	// Token, when set, is the bearer token every /api/ request must carry
	// (-token or CHAT_TOKEN).
	Token string
	// CORSOrigin, when set, is the origin allowed to call the API from a
	// browser ("*" for any); empty sends no CORS headers (-cors-origin).
	CORSOrigin string
	// Rate and Burst are the per-client-IP token bucket of /api/ requests
	// (-rate requests per second, -burst); Rate <= 0 turns the limit off.
	Rate  float64
	Burst int
	// TrustProxy takes the client IP from X-Forwarded-For / X-Real-IP
	// (-trust-proxy); only behind a proxy that sets them.
	TrustProxy bool
	// MaxBodyBytes bounds request bodies (-max-body).
	MaxBodyBytes int64
	// MaxMessageChars, MaxHistoryTurns and MaxTurnChars bound a chat
	// request; MaxQueryChars a search query. Longer input is refused (400).
	MaxMessageChars, MaxHistoryTurns, MaxTurnChars, MaxQueryChars int
	// ChatTimeout bounds one chat turn; SearchTimeout one search.
	ChatTimeout, SearchTimeout time.Duration
	// Heartbeat is the interval of SSE keep-alive comments while a turn
	// is slow.
	Heartbeat time.Duration
	// ShutdownTimeout bounds the graceful shutdown.
	ShutdownTimeout time.Duration
	// Verbose logs every request (-v).
	Verbose bool

	// Env holds the environment variables that switch components.
	Env envConfig
}

// envConfig is what the environment selects.
type envConfig struct {
	// DatabaseURL switches the store to PostgreSQL (DATABASE_URL).
	DatabaseURL string
	// RAG holds the library's knobs and the model switches
	// (rag.ConfigFromEnv: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL,
	// EMBEDDING_MODEL, OPENROUTER_API_KEY, the seeds' search variables...).
	RAG rag.Config
}

// usageError is a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// parseConfig reads the flags in args and the environment through getenv.
// It returns flag.ErrHelp for -h.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg := config{
		MaxMessageChars: defaultMaxMessageChars,
		MaxHistoryTurns: defaultMaxHistoryTurns,
		MaxTurnChars:    defaultMaxTurnChars,
		MaxQueryChars:   defaultMaxQueryChars,
		ShutdownTimeout: defaultShutdownTimeout,
	}
	fs := flag.NewFlagSet("chatserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", defaultAddr, "listen address")
	fs.StringVar(&cfg.Testdata, "testdata", "", "directory with catalog.jsonl, faqs.jsonl, documents/ and documents.jsonl (default: ./testdata, searched upwards)")
	fs.StringVar(&cfg.Tenant, "tenant", defaultTenant, "tenant of the store")
	fs.StringVar(&cfg.Schema, "schema", postgres.DefaultSchema, "PostgreSQL schema (with DATABASE_URL)")
	fs.StringVar(&cfg.Token, "token", "", "bearer token required on /api/ requests (default $CHAT_TOKEN; empty: none)")
	fs.StringVar(&cfg.CORSOrigin, "cors-origin", "", `origin allowed by CORS ("*" for any; empty: CORS off)`)
	fs.Float64Var(&cfg.Rate, "rate", defaultRate, "requests per second per client IP on /api/ (<= 0: unlimited)")
	fs.IntVar(&cfg.Burst, "burst", defaultBurst, "burst of the per-IP rate limit")
	fs.BoolVar(&cfg.TrustProxy, "trust-proxy", false, "take the client IP from X-Forwarded-For (only behind a trusted proxy)")
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body", defaultMaxBodyBytes, "maximum request body in bytes")
	fs.DurationVar(&cfg.ChatTimeout, "chat-timeout", defaultChatTimeout, "time limit of one chat turn")
	fs.DurationVar(&cfg.SearchTimeout, "search-timeout", defaultSearchTimeout, "time limit of one search")
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", defaultHeartbeat, "interval of SSE keep-alive comments")
	fs.BoolVar(&cfg.Verbose, "v", false, "log every request")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: chatserver [flags]

Serves the hybridrag demo: a chat web page at / and a JSON API under /api/.
With no environment it runs offline on the testdata catalog (memory store,
hash embedder, keyword classifier, extractive answerer).

Environment:
  DATABASE_URL        PostgreSQL + pgvector DSN: migrated on start, seeded from testdata when empty
  OPENAI_API_KEY      real models (OPENAI_BASE_URL, OPENAI_MODEL, EMBEDDING_MODEL to change them)
  OPENROUTER_API_KEY  real chat models through OpenRouter (OPENROUTER_MODEL_ANSWER); embeddings
                      stay offline unless OPENAI_API_KEY is also set
  CHAT_TOKEN          bearer token (same as -token)
  The seeds' search knobs (HYBRID_SEARCH_ENHANCED, CATALOG_VECTOR_WEIGHT, ...) are read by
  rag.ConfigFromEnv; EMBEDDING_DIMENSIONS sets the vector size (default 1536).

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return config{}, &usageError{msg: fmt.Sprintf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	if cfg.Token == "" {
		cfg.Token = strings.TrimSpace(getenv("CHAT_TOKEN"))
	}
	switch {
	case cfg.Burst < 1 && cfg.Rate > 0:
		return config{}, &usageError{msg: "-burst must be at least 1"}
	case cfg.MaxBodyBytes < 1024:
		return config{}, &usageError{msg: "-max-body must be at least 1024"}
	case cfg.ChatTimeout <= 0 || cfg.SearchTimeout <= 0:
		return config{}, &usageError{msg: "-chat-timeout and -search-timeout must be positive"}
	case cfg.Heartbeat <= 0:
		return config{}, &usageError{msg: "-heartbeat must be positive"}
	}
	rc, err := rag.ConfigFromEnv(getenv)
	if err != nil {
		return config{}, &usageError{msg: "environment: " + err.Error()}
	}
	cfg.Env = envConfig{DatabaseURL: strings.TrimSpace(getenv("DATABASE_URL")), RAG: rc}
	return cfg, nil
}
