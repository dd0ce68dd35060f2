package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/internal/testenv"
)

// envTestDSN names the PostgreSQL + pgvector DSN of the integration tests
// (DESIGN §11); .ci/run always sets it.
const envTestDSN = "HYBRIDRAG_TEST_DATABASE_URL"

// testDSN is the PostgreSQL + pgvector DSN of the integration tests; the
// test skips without one (fails with HYBRIDRAG_REQUIRE_POSTGRES=1).
func testDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(envTestDSN)
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "skipping the PostgreSQL test: set %s to a PostgreSQL + pgvector DSN (.ci/postgres.sh start prints one)", envTestDSN)
	}
	return dsn
}

// dropSchemaAfter drops schema (with everything in it) when t ends.
func dropSchemaAfter(t *testing.T, dsn, schema string) {
	t.Cleanup(func() {
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			t.Logf("cleanup: %v", err)
			return
		}
		defer pool.Close()
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
}

// TestPostgresBackend opens the server's backend on PostgreSQL twice: the
// first start migrates and seeds an empty tenant from testdata, the second
// uses it as it is. It runs in its own schema, dropped afterwards.
func TestPostgresBackend(t *testing.T) {
	dsn := testDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const schema = "chatserver_test"
	dropSchemaAfter(t, dsn, schema)

	cfg := testConfig(t)
	cfg.Env.DatabaseURL = dsn
	cfg.Schema = schema
	cfg.Tenant = fmt.Sprintf("t%d", time.Now().UnixNano())

	first, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.info.Store != "postgres" || !first.index.Seeded || first.index.Items != 81 || first.index.Embedded == 0 {
		t.Errorf("first start: store %q, index %+v", first.info.Store, first.index)
	}
	first.close()

	second, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.close()
	if second.index.Seeded {
		t.Errorf("second start seeded again: %+v", second.index)
	}
	h := newServerWith(cfg, nil, second).routes()
	rec := do(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira","limit":3}`)
	if rec.Code != 200 {
		t.Fatalf("search: %d %s", rec.Code, rec.Body.String())
	}
	r := decode[searchResponse](t, rec)
	if !r.EmbeddingUsed || len(r.Hits) != 3 || r.Counts.Vector == 0 {
		t.Errorf("postgres hybrid search: embedding %v, %d hits, counts %+v", r.EmbeddingUsed, len(r.Hits), r.Counts)
	}
	if rec := do(t, h, "GET", "/healthz", ""); rec.Code != 200 {
		t.Errorf("healthz: %d %s", rec.Code, rec.Body.String())
	}
	st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", ""))
	if st.Counts == nil || st.Counts.Items != 81 || st.Counts.FAQs != 36 || st.Components.Store != "postgres" {
		t.Errorf("stats: %+v %+v", st.Counts, st.Components)
	}
	events, _ := parseSSE(t, do(t, h, "POST", "/api/chat", `{"message":"qual o prazo de entrega?"}`, "Accept", "text/event-stream").Body.Bytes())
	if len(events) == 0 || events[len(events)-1].Name != "done" {
		t.Errorf("chat over postgres: %d events", len(events))
	}
}

// TestPostgresOutage serves the API over PostgreSQL reached through a TCP
// proxy, then stops the proxy (the server as good as stopped: open
// connections cut, new ones refused): searches and chat turns are 503
// store_unavailable with Retry-After and nothing about the database in
// the body; when the proxy is back, the pool reconnects and they are 200
// again.
func TestPostgresOutage(t *testing.T) {
	dsn := testDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	target := net.JoinHostPort(pcfg.ConnConfig.Host, strconv.Itoa(int(pcfg.ConnConfig.Port)))
	proxy := startTCPProxy(t, "127.0.0.1:0", target)
	defer proxy.stop()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = proxy.addr
	const schema = "chatserver_outage_test"
	dropSchemaAfter(t, dsn, schema)
	cfg := testConfig(t)
	cfg.Env.DatabaseURL = u.String()
	cfg.Schema = schema
	cfg.Tenant = fmt.Sprintf("t%d", time.Now().UnixNano())
	be, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer be.close()
	logs := &syncBuffer{}
	h := newServerWith(cfg, slog.New(slog.NewTextHandler(logs, nil)), be).routes()

	requests := []struct {
		name, path, body string
		hdr              []string
	}{
		{"catalog search", "/api/rag/search", `{"query":"fungicida para videira","limit":3}`, nil},
		{"faq search", "/api/faq/search", `{"query":"prazo de entrega"}`, nil},
		{"vector search", "/api/rag/search", `{"query":"fungicida para videira","mode":"vector"}`, nil},
		{"vector faq search", "/api/faq/search", `{"query":"prazo de entrega","mode":"vector"}`, nil},
		{"chat", "/api/chat", `{"message":"tem fungicida para videira?"}`, nil},
		{"chat stream", "/api/chat", `{"message":"qual o prazo de entrega?"}`, []string{"Accept", "text/event-stream"}},
	}
	for _, r := range requests {
		if rec := do(t, h, "POST", r.path, r.body, r.hdr...); rec.Code != 200 {
			t.Fatalf("%s before the outage: %d %s", r.name, rec.Code, rec.Body.String())
		}
	}

	proxy.stop()
	for _, r := range requests {
		t.Run("down/"+r.name, func(t *testing.T) {
			rec := do(t, h, "POST", r.path, r.body, r.hdr...)
			wantStoreUnavailable(t, rec)
			for _, s := range []string{pcfg.ConnConfig.Database, pcfg.ConnConfig.User + "@", proxy.addr} {
				if strings.Contains(rec.Body.String(), s) {
					t.Errorf("the response shows %q: %s", s, rec.Body.String())
				}
			}
		})
	}
	wantError(t, do(t, h, "GET", "/healthz", ""), 503, codeStoreUnavailable)
	if !strings.Contains(logs.String(), "store unavailable") {
		t.Errorf("the outage is not logged:\n%s", logs.String())
	}

	proxy.restart(t)
	for _, r := range requests {
		if rec := do(t, h, "POST", r.path, r.body, r.hdr...); rec.Code != 200 {
			t.Errorf("%s after the outage: %d %s", r.name, rec.Code, rec.Body.String())
		}
	}
}

// tcpProxy forwards TCP connections from addr to target until stopped.
type tcpProxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func startTCPProxy(t *testing.T, addr, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{target: target}
	p.listen(t, addr)
	return p
}

func (p *tcpProxy) listen(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); u.Close() }()
			go func() { _, _ = io.Copy(c, u); c.Close() }()
		}
	}()
}

// stop closes the listener and cuts every open connection.
func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restart listens again on the same address.
func (p *tcpProxy) restart(t *testing.T) {
	t.Helper()
	p.listen(t, p.addr)
}
