package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// Defaults of the command-line flags.
const (
	// defaultAddr listens on the loopback interface only: an open demo
	// (no token) must not be reachable from the network by default;
	// -addr :8080 listens on every interface.
	defaultAddr            = "127.0.0.1:8080"
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
	// defaultMaxWriteBody bounds the bodies of the write API (an item
	// with its files, a document): larger than -max-body, which bounds
	// chat and search requests.
	defaultMaxWriteBody = 4 << 20
)

// extractMode is the metadata extractor run on documents at ingestion
// (-extract, DOCUMENT_EXTRACTOR).
type extractMode string

// Extraction modes.
const (
	// extractNone extracts nothing.
	extractNone extractMode = "none"
	// extractLegal runs rag/ingest/legal: document type, number and year
	// on documents; artigo, paragrafo, inciso, alinea, tipo and the
	// seed's marca_* markers on chunks (search them with chunk_filters);
	// statutes are chunked at their articles.
	extractLegal extractMode = "legal"
)

// envExtract selects the extractor when -extract is not given.
const envExtract = "DOCUMENT_EXTRACTOR"

// errBadExtract is the parse error of an unknown extraction mode.
var errBadExtract = errors.New(`want "none" or "legal"`)

// parseExtract reads an extraction mode (case and surrounding space
// ignored).
func parseExtract(s string) (extractMode, error) {
	switch m := extractMode(strings.ToLower(strings.TrimSpace(s))); m {
	case extractNone, extractLegal:
		return m, nil
	}
	return "", errBadExtract
}

// MarshalText and UnmarshalText make extractMode a flag (flag.TextVar).
func (m extractMode) MarshalText() ([]byte, error) { return []byte(m), nil }

func (m *extractMode) UnmarshalText(b []byte) error {
	v, err := parseExtract(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// envMetadataKeys sets the metadata filter allowlist when -metadata-keys
// is not given.
const envMetadataKeys = "METADATA_FILTER_KEYS"

// defaultMetadataKeys are the metadata keys searches may filter on by
// default: the testdata catalog's product attributes and the documents'
// theme and audience. Values compare as normalized text (case and accents
// ignored), so only keys with short, categorical values are worth
// allowing.
var defaultMetadataKeys = keyList{"formulacao", "ingrediente_ativo", "classe_toxicologica", "classe_ambiental", "tema", "publico"}

// keyList is the -metadata-keys flag: comma-separated metadata keys.
type keyList []string

func (k keyList) String() string { return strings.Join(k, ",") }

func (k *keyList) Set(v string) error {
	l, err := parseKeys(v)
	if err != nil {
		return err
	}
	*k = l
	return nil
}

// errBadKey is the parse error of a metadata key that no filter could
// name (storage.Filter keys match [a-z0-9_][a-z0-9_.-]{0,63}).
var errBadKey = errors.New("want comma-separated lowercase keys of letters, digits, '_', '.' and '-' (at most 64 each)")

// parseKeys reads a comma-separated key list; blanks are dropped, keys are
// lower-cased and deduplicated, and "" or "none" is the empty list (no
// metadata filter allowed).
func parseKeys(v string) (keyList, error) {
	out := keyList{}
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return out, nil
	}
	for _, k := range strings.Split(v, ",") {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" || slices.Contains(out, k) {
			continue
		}
		if !validMetadataKey(k) {
			return nil, fmt.Errorf("%q: %w", k, errBadKey)
		}
		out = append(out, k)
	}
	return out, nil
}

// validMetadataKey reports whether k is a key storage.Filter accepts.
func validMetadataKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i, r := range k {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
		case (r == '.' || r == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// defaultRerank is the reranking of -rerank and RERANK when neither is
// set. Off until the chat evaluation decides; flip it here.
const defaultRerank = rerankOff

// envRerank selects the reranker when -rerank is not given.
const envRerank = "RERANK"

// envFallbackMemory sets -fallback-memory when the flag is not given.
const envFallbackMemory = "FALLBACK_MEMORY"

// errBadBool is the parse error of a boolean variable.
var errBadBool = errors.New("want 1, true, 0 or false")

// Environment variables of the proxy settings, read when the flag is not
// given.
const (
	envTrustedHops    = "TRUSTED_HOPS"
	envTrustedProxies = "TRUSTED_PROXIES"
)

// maxTrustedHops bounds -trusted-hops.
const maxTrustedHops = 16

// Parse errors of the proxy settings.
var (
	errBadHops  = fmt.Errorf("want a number of proxies from 1 to %d", maxTrustedHops)
	errBadProxy = errors.New("want comma-separated CIDR prefixes or IP addresses")
)

// proxyList is the -trusted-proxies flag.
type proxyList []netip.Prefix

func (p proxyList) String() string {
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = x.String()
	}
	return strings.Join(s, ",")
}

func (p *proxyList) Set(v string) error {
	l, err := parseProxies(v)
	if err != nil {
		return err
	}
	*p = l
	return nil
}

// rerankMode is the reranker of the searches (-rerank, RERANK).
type rerankMode string

// Reranking modes.
const (
	// rerankOff keeps the fused order.
	rerankOff rerankMode = "off"
	// rerankKeyword reranks every search with rag/rerank.NewKeyword (the
	// seeds' offline fallback: 60% fused score, 25% content and 15% title
	// term overlap), keeping at most 5 hits scoring 0.5 or more.
	rerankKeyword rerankMode = "keyword"
)

// errBadRerank is the parse error of an unknown reranking mode.
var errBadRerank = errors.New(`want "off" or "keyword"`)

// parseRerank reads a reranking mode (case and surrounding space ignored).
func parseRerank(s string) (rerankMode, error) {
	switch m := rerankMode(strings.ToLower(strings.TrimSpace(s))); m {
	case rerankOff, rerankKeyword:
		return m, nil
	}
	return "", errBadRerank
}

// MarshalText and UnmarshalText make rerankMode a flag (flag.TextVar).
func (m rerankMode) MarshalText() ([]byte, error) { return []byte(m), nil }

func (m *rerankMode) UnmarshalText(b []byte) error {
	v, err := parseRerank(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

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
	// (-token or CHAT_TOKEN). The write API (PUT and DELETE on
	// /api/items/, /api/faqs/, /api/documents/) is refused without one.
	Token string
	// MetadataKeys are the metadata keys search filters may name
	// (-metadata-keys, else METADATA_FILTER_KEYS, else
	// defaultMetadataKeys); the stores get the same allowlist.
	MetadataKeys []string
	// MaxWriteBodyBytes bounds the request bodies of the write API
	// (-max-write-body).
	MaxWriteBodyBytes int64
	// Extract is the metadata extractor of documents, run when the
	// testdata is indexed and on every document written (-extract, else
	// DOCUMENT_EXTRACTOR, else none).
	Extract extractMode
	// CORSOrigin, when set, is the origin allowed to call the API from a
	// browser ("*" for any); empty sends no CORS headers (-cors-origin).
	CORSOrigin string
	// Rate and Burst are the per-client-IP token bucket of /api/ requests
	// (-rate requests per second, -burst); Rate <= 0 turns the limit off.
	Rate  float64
	Burst int
	// RateClients bounds the limiter's table of clients (-rate-clients);
	// when it is full, new clients share one bucket.
	RateClients int
	// TrustProxy takes the client IP from X-Forwarded-For (-trust-proxy),
	// read from the right: the TrustedHops-th address (default 1, the one
	// the proxy in front appended), or with TrustedProxies the right-most
	// address that is not a trusted proxy (and only when the peer is
	// one). Either of TrustedHops (-trusted-hops, TRUSTED_HOPS) and
	// TrustedProxies (-trusted-proxies, TRUSTED_PROXIES) implies
	// TrustProxy.
	TrustProxy     bool
	TrustedHops    int
	TrustedProxies []netip.Prefix
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
	// Rerank is the reranker of every search, the chat's included
	// (-rerank, else RERANK, else defaultRerank).
	Rerank rerankMode
	// FallbackMemory starts on the memory store, seeded from the
	// testdata, when DATABASE_URL is set but PostgreSQL cannot be reached
	// at start (-fallback-memory, else FALLBACK_MEMORY); off, the server
	// exits instead.
	FallbackMemory bool

	// Env holds the environment variables that switch components.
	Env envConfig
}

// envConfig is what the environment selects.
type envConfig struct {
	// DatabaseURL switches the store to PostgreSQL (DATABASE_URL).
	DatabaseURL string
	// RAG holds the library's knobs and the model switches
	// (settings.ConfigFromEnv: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL,
	// EMBEDDING_MODEL, OPENROUTER_API_KEY, the seeds' search variables...).
	RAG settings.Config
}

// usageError is a command-line or environment mistake (exit status 2).
// err, when set, is the typed cause (a *rag.EnvError for a bad variable).
type usageError struct {
	msg string
	err error
}

func (e *usageError) Error() string { return e.msg }

func (e *usageError) Unwrap() error { return e.err }

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
	var proxies proxyList
	metaKeys := slices.Clone(defaultMetadataKeys)
	fs := flag.NewFlagSet("chatserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", defaultAddr, "listen address (:8080 for every interface)")
	fs.StringVar(&cfg.Testdata, "testdata", "", "directory with catalog.jsonl, faqs.jsonl, documents/ and documents.jsonl (default: ./testdata, searched upwards)")
	fs.StringVar(&cfg.Tenant, "tenant", defaultTenant, "tenant of the store")
	fs.StringVar(&cfg.Schema, "schema", postgres.DefaultSchema, "PostgreSQL schema (with DATABASE_URL)")
	fs.StringVar(&cfg.Token, "token", "", "bearer token required on /api/ requests (default $CHAT_TOKEN; empty: none)")
	fs.StringVar(&cfg.CORSOrigin, "cors-origin", "", `origin allowed by CORS ("*" for any; empty: CORS off)`)
	fs.Float64Var(&cfg.Rate, "rate", defaultRate, "requests per second per client IP on /api/ (<= 0: unlimited)")
	fs.IntVar(&cfg.Burst, "burst", defaultBurst, "burst of the per-IP rate limit")
	fs.IntVar(&cfg.RateClients, "rate-clients", defaultRateClients, "clients the rate limiter tracks at most; when full, new clients share one bucket")
	fs.BoolVar(&cfg.TrustProxy, "trust-proxy", false, "take the client IP from X-Forwarded-For, read from the right (only behind a proxy; see -trusted-hops, -trusted-proxies)")
	fs.IntVar(&cfg.TrustedHops, "trusted-hops", 1, "with -trust-proxy, the proxies in front of the server: the client is this many X-Forwarded-For addresses from the right; setting it (or $"+envTrustedHops+") turns -trust-proxy on, the default alone does not")
	fs.Var(&proxies, "trusted-proxies", "comma-separated `CIDRs` of the trusted proxies: the client is the right-most X-Forwarded-For address outside them (implies -trust-proxy; default $"+envTrustedProxies+")")
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body", defaultMaxBodyBytes, "maximum request body in bytes")
	fs.Int64Var(&cfg.MaxWriteBodyBytes, "max-write-body", defaultMaxWriteBody, "maximum request body of the write API (PUT /api/items/{id}, ...) in bytes")
	fs.Var(&metaKeys, "metadata-keys", "comma-separated metadata `keys` search filters may name (\"none\": no metadata filter; $"+envMetadataKeys+" when not given)")
	fs.DurationVar(&cfg.ChatTimeout, "chat-timeout", defaultChatTimeout, "time limit of one chat turn")
	fs.DurationVar(&cfg.SearchTimeout, "search-timeout", defaultSearchTimeout, "time limit of one search")
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", defaultHeartbeat, "interval of SSE keep-alive comments")
	fs.BoolVar(&cfg.Verbose, "v", false, "log every request")
	fs.TextVar(&cfg.Extract, "extract", extractNone, "metadata extractor of documents, `none|legal` (overrides $"+envExtract+"); legal chunk metadata is searched with chunk_filters")
	fs.BoolVar(&cfg.FallbackMemory, "fallback-memory", false, "when PostgreSQL (DATABASE_URL) is unreachable at start, run on the memory store seeded from testdata instead of exiting (default $"+envFallbackMemory+")")
	fs.TextVar(&cfg.Rerank, "rerank", defaultRerank, "reranker of the searches, `off|keyword` (overrides $"+envRerank+")")
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
  CHAT_TOKEN          bearer token (same as -token); the write API needs one
  METADATA_FILTER_KEYS
                      metadata keys search filters may name (same as -metadata-keys; the flag wins)
  DOCUMENT_EXTRACTOR  metadata extractor of documents, none or legal (same as -extract; the flag wins)
  RERANK              reranker of the searches, off or keyword (same as -rerank; the flag wins)
  FALLBACK_MEMORY     1: run on the memory store when PostgreSQL is unreachable at start
                      (same as -fallback-memory; the flag wins)
  TRUSTED_HOPS        same as -trusted-hops (the flag wins)
  TRUSTED_PROXIES     same as -trusted-proxies (the flag wins)
  The seeds' search knobs (HYBRID_SEARCH_ENHANCED, CATALOG_VECTOR_WEIGHT, ...) are read by
  settings.ConfigFromEnv (examples/internal/settings); EMBEDDING_DIMENSIONS sets the vector size (default 1536).

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
	if !flagSet(fs, "rerank") {
		if v := strings.TrimSpace(getenv(envRerank)); v != "" {
			m, err := parseRerank(v)
			if err != nil {
				ee := &settings.EnvError{Var: envRerank, Value: v, Err: err}
				return config{}, &usageError{msg: "environment: " + ee.Error(), err: ee}
			}
			cfg.Rerank = m
		}
	}
	if !flagSet(fs, "fallback-memory") {
		if v, ok := lookupEnv(getenv, envFallbackMemory); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				ee := &settings.EnvError{Var: envFallbackMemory, Value: v, Err: errBadBool}
				return config{}, &usageError{msg: "environment: " + ee.Error(), err: ee}
			}
			cfg.FallbackMemory = b
		}
	}
	if !flagSet(fs, "extract") {
		if v, ok := lookupEnv(getenv, envExtract); ok {
			m, err := parseExtract(v)
			if err != nil {
				ee := &settings.EnvError{Var: envExtract, Value: v, Err: err}
				return config{}, &usageError{msg: "environment: " + ee.Error(), err: ee}
			}
			cfg.Extract = m
		}
	}
	if !flagSet(fs, "metadata-keys") {
		if v, ok := lookupEnv(getenv, envMetadataKeys); ok {
			l, err := parseKeys(v)
			if err != nil {
				ee := &settings.EnvError{Var: envMetadataKeys, Value: v, Err: err}
				return config{}, &usageError{msg: "environment: " + ee.Error(), err: ee}
			}
			metaKeys = l
		}
	}
	cfg.MetadataKeys = metaKeys
	if err := proxyConfig(&cfg, fs, proxies, getenv); err != nil {
		return config{}, err
	}
	switch {
	case cfg.RateClients < 1:
		return config{}, &usageError{msg: "-rate-clients must be at least 1"}
	case cfg.Burst < 1 && cfg.Rate > 0:
		return config{}, &usageError{msg: "-burst must be at least 1"}
	case cfg.MaxBodyBytes < 1024:
		return config{}, &usageError{msg: "-max-body must be at least 1024"}
	case cfg.MaxWriteBodyBytes < 1024:
		return config{}, &usageError{msg: "-max-write-body must be at least 1024"}
	case cfg.ChatTimeout <= 0 || cfg.SearchTimeout <= 0:
		return config{}, &usageError{msg: "-chat-timeout and -search-timeout must be positive"}
	case cfg.Heartbeat <= 0:
		return config{}, &usageError{msg: "-heartbeat must be positive"}
	}
	rc, err := settings.ConfigFromEnv(getenv)
	if err != nil {
		return config{}, &usageError{msg: "environment: " + err.Error(), err: err}
	}
	cfg.Env = envConfig{DatabaseURL: strings.TrimSpace(getenv("DATABASE_URL")), RAG: rc}
	return cfg, nil
}

// proxyConfig completes the proxy settings of cfg from the flags (fs,
// proxies) and the environment: TRUSTED_HOPS and TRUSTED_PROXIES when the
// flags are not given; either implies TrustProxy; both is an error.
func proxyConfig(cfg *config, fs *flag.FlagSet, proxies proxyList, getenv func(string) string) error {
	hopsSet, proxiesSet := flagSet(fs, "trusted-hops"), flagSet(fs, "trusted-proxies")
	if !hopsSet {
		if v := strings.TrimSpace(getenv(envTrustedHops)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxTrustedHops {
				ee := &settings.EnvError{Var: envTrustedHops, Value: v, Err: errBadHops}
				return &usageError{msg: "environment: " + ee.Error(), err: ee}
			}
			cfg.TrustedHops, hopsSet = n, true
		}
	} else if cfg.TrustedHops < 1 || cfg.TrustedHops > maxTrustedHops {
		return &usageError{msg: "-trusted-hops: " + errBadHops.Error()}
	}
	if !proxiesSet {
		if v := strings.TrimSpace(getenv(envTrustedProxies)); v != "" {
			l, err := parseProxies(v)
			if err != nil {
				ee := &settings.EnvError{Var: envTrustedProxies, Value: v, Err: err}
				return &usageError{msg: "environment: " + ee.Error(), err: ee}
			}
			proxies, proxiesSet = l, len(l) > 0
		}
	}
	if proxiesSet && len(proxies) == 0 {
		return &usageError{msg: "-trusted-proxies: " + errBadProxy.Error()}
	}
	if hopsSet && proxiesSet {
		return &usageError{msg: "give -trusted-hops or -trusted-proxies (or TRUSTED_HOPS or TRUSTED_PROXIES), not both"}
	}
	cfg.TrustedProxies = proxies
	cfg.TrustProxy = cfg.TrustProxy || hopsSet || proxiesSet
	return nil
}

// lookupEnv returns the variable name when it is set and not blank.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := strings.TrimSpace(getenv(name))
	return v, v != ""
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
