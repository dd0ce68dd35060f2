package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
)

// syncBuffer is a bytes.Buffer safe for the server's log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	ready := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"-addr", "127.0.0.1:0", "-testdata", testdataDir}, func(string) string { return "" }, &logs, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case code := <-exit:
		t.Fatalf("run exited with %d:\n%s", code, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("server not ready")
	}
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("healthz: %d", res.StatusCode)
	}

	// One start-up line naming the components and the switches.
	var lines []string
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, "chatserver: http://") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("start-up lines = %q", lines)
	}
	for _, want := range []string{"store=memory", "embedder=hash", "classifier=keyword", "answerer=extractive", "reranker=" + string(defaultRerank), "DATABASE_URL", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "81 items"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("start-up line lacks %q: %s", want, lines[0])
		}
	}

	cancel()
	select {
	case code := <-exit:
		if code != exitOK {
			t.Errorf("exit code %d after shutdown:\n%s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no graceful shutdown")
	}
}

func TestRunErrors(t *testing.T) {
	empty := func(string) string { return "" }
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown flag", []string{"-nope"}, exitUsage, "not defined"},
		{"extra argument", []string{"serve"}, exitUsage, "unexpected arguments"},
		{"bad burst", []string{"-burst", "0"}, exitUsage, "-burst"},
		{"missing testdata", []string{"-testdata", os.TempDir()}, exitError, "-testdata"},
		{"help", []string{"-h"}, exitOK, "DATABASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := run(context.Background(), tt.args, empty, &out, nil); code != tt.code || !strings.Contains(out.String(), tt.want) {
				t.Errorf("run(%q) = %d, output %q; want %d containing %q", tt.args, code, out.String(), tt.code, tt.want)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	env := map[string]string{
		"CHAT_TOKEN":     " tok ",
		"DATABASE_URL":   "postgres://x",
		"OPENAI_API_KEY": "sk-test",
		"OPENAI_MODEL":   "gpt-test",
	}
	cfg, err := parseConfig([]string{"-addr", ":9999", "-rate", "100", "-burst", "7", "-cors-origin", "*"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":9999" || cfg.Rate != 100 || cfg.Burst != 7 || cfg.CORSOrigin != "*" || cfg.Token != "tok" {
		t.Errorf("flags: %+v", cfg)
	}
	if cfg.Env.DatabaseURL != "postgres://x" || cfg.Env.RAG.Providers.OpenAIAPIKey.Value() != "sk-test" || cfg.Env.RAG.Chat.AnswerModel != "gpt-test" {
		t.Errorf("env: %+v", cfg.Env)
	}
	if _, err := parseConfig(nil, func(k string) string {
		return map[string]string{"CATALOG_VECTOR_WEIGHT": "heavy", "OPENAI_API_KEY": "sk-secret"}[k]
	}, io.Discard); err == nil || !strings.Contains(err.Error(), "CATALOG_VECTOR_WEIGHT") || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("bad knob: %v", err)
	}
	cfg, err = parseConfig([]string{"-token", "flag"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Token != "flag" {
		t.Errorf("-token should win over CHAT_TOKEN: %q %v", cfg.Token, err)
	}
	if _, err := parseConfig([]string{"-h"}, nil, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestParseConfigRerank(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     string // RERANK
		want    rerankMode
		wantErr string // substring of the error; "" for none
		envErr  bool   // the error is a *rag.EnvError naming RERANK
	}{
		{name: "default", want: defaultRerank},
		{name: "flag keyword", args: []string{"-rerank", "keyword"}, want: rerankKeyword},
		{name: "flag off", args: []string{"-rerank=off"}, want: rerankOff},
		{name: "flag case and space", args: []string{"-rerank", " Keyword "}, want: rerankKeyword},
		{name: "env keyword", env: "keyword", want: rerankKeyword},
		{name: "env off", env: "OFF", want: rerankOff},
		{name: "env blank", env: "  ", want: defaultRerank},
		{name: "flag wins over env", args: []string{"-rerank", "off"}, env: "keyword", want: rerankOff},
		{name: "flag wins over a bad env", args: []string{"-rerank", "keyword"}, env: "cohere", want: rerankKeyword},
		{name: "bad flag", args: []string{"-rerank", "llm"}, wantErr: "-rerank"},
		{name: "empty flag", args: []string{"-rerank="}, wantErr: "-rerank"},
		{name: "bad env", env: "bm25", wantErr: `RERANK="bm25"`, envErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == envRerank {
					return tt.env
				}
				return ""
			}
			cfg, err := parseConfig(tt.args, getenv, io.Discard)
			if tt.wantErr == "" {
				if err != nil || cfg.Rerank != tt.want {
					t.Errorf("rerank = %q, err %v; want %q", cfg.Rerank, err, tt.want)
				}
				return
			}
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
			}
			var ee *settings.EnvError
			if got := errors.As(err, &ee) && ee.Var == envRerank && errors.Is(err, settings.ErrInvalidConfig) && errors.Is(err, errBadRerank); got != tt.envErr {
				t.Errorf("err = %v: *rag.EnvError naming %s = %v, want %v", err, envRerank, got, tt.envErr)
			}
		})
	}
}

func TestParseConfigProxy(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		env         map[string]string
		trust       bool
		hops        int
		proxies     string
		wantErr     string // substring of the error; "" for none
		envErrOfVar string // the error is a *settings.EnvError naming this variable
	}{
		{name: "default", hops: 1},
		{name: "trust-proxy: one hop", args: []string{"-trust-proxy"}, trust: true, hops: 1},
		{name: "hops imply trust", args: []string{"-trusted-hops", "2"}, trust: true, hops: 2},
		{name: "proxies imply trust", args: []string{"-trusted-proxies", "10.0.0.0/8, 192.0.2.7"}, trust: true, hops: 1, proxies: "10.0.0.0/8,192.0.2.7/32"},
		{name: "env hops", env: map[string]string{envTrustedHops: "3"}, trust: true, hops: 3},
		{name: "env proxies", env: map[string]string{envTrustedProxies: "2001:db8::/32"}, trust: true, hops: 1, proxies: "2001:db8::/32"},
		{name: "flag wins over env", args: []string{"-trusted-hops", "2"}, env: map[string]string{envTrustedHops: "5"}, trust: true, hops: 2},
		{name: "bad hops", args: []string{"-trusted-hops", "0"}, wantErr: "-trusted-hops"},
		{name: "too many hops", args: []string{"-trusted-hops", "99"}, wantErr: "-trusted-hops"},
		{name: "bad proxies", args: []string{"-trusted-proxies", "10.0.0.0/33"}, wantErr: "-trusted-proxies"},
		{name: "empty proxies", args: []string{"-trusted-proxies", " , "}, wantErr: "-trusted-proxies"},
		{name: "both", args: []string{"-trusted-hops", "2", "-trusted-proxies", "10.0.0.0/8"}, wantErr: "not both"},
		{name: "bad env hops", env: map[string]string{envTrustedHops: "many"}, wantErr: envTrustedHops, envErrOfVar: envTrustedHops},
		{name: "bad env proxies", env: map[string]string{envTrustedProxies: "localhost"}, wantErr: envTrustedProxies, envErrOfVar: envTrustedProxies},
		{name: "bad rate-clients", args: []string{"-rate-clients", "0"}, wantErr: "-rate-clients"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				var ee *settings.EnvError
				if got := errors.As(err, &ee) && ee.Var == tt.envErrOfVar; got != (tt.envErrOfVar != "") {
					t.Errorf("err = %v: an EnvError naming %q = %v", err, tt.envErrOfVar, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.TrustProxy != tt.trust || cfg.TrustedHops != tt.hops || proxyList(cfg.TrustedProxies).String() != tt.proxies || cfg.RateClients != defaultRateClients {
				t.Errorf("trust %v hops %d proxies %q clients %d; want %v %d %q", cfg.TrustProxy, cfg.TrustedHops, proxyList(cfg.TrustedProxies), cfg.RateClients, tt.trust, tt.hops, tt.proxies)
			}
		})
	}
}

func TestFindTestdata(t *testing.T) {
	if dir, err := findTestdata(""); err != nil || !strings.HasSuffix(dir, "testdata") {
		t.Errorf("search upwards from the package: %q %v", dir, err)
	}
	_, err := findTestdata(t.TempDir())
	if !errors.Is(err, errTestdataNotFound) {
		t.Errorf("empty dir: %v", err)
	}
	t.Chdir(t.TempDir())
	_, err = findTestdata("")
	if !errors.Is(err, errTestdataNotFound) || !strings.Contains(err.Error(), "-testdata") || !strings.Contains(err.Error(), "repository root") {
		t.Errorf("not found: %v", err)
	}
}

func TestOpenModels(t *testing.T) {
	tests := []struct {
		name          string
		env           map[string]string
		wantChat      bool
		wantEmbedder  bool
		wantModelName string
	}{
		{"offline", nil, false, false, ""},
		{"openai", map[string]string{"OPENAI_API_KEY": "sk", "OPENAI_MODEL": "m1"}, true, true, "openai:m1"},
		{"openrouter", map[string]string{"OPENROUTER_API_KEY": "or"}, true, false, "openrouter:" + defaultOpenRouterModel},
		{"openrouter chat, openai embeddings", map[string]string{"OPENROUTER_API_KEY": "or", "OPENAI_API_KEY": "sk", "OPENROUTER_MODEL_ANSWER": "x/y"}, true, true, "openrouter:x/y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := settings.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			m, err := openModels(rc)
			if err != nil {
				t.Fatal(err)
			}
			if (m.chat != nil) != tt.wantChat || (m.embedder != nil) != tt.wantEmbedder || m.chatModel != tt.wantModelName {
				t.Errorf("chat %v embedder %v model %q", m.chat != nil, m.embedder != nil, m.chatModel)
			}
			if (m.pipelineOptions.Summarizer != nil) != tt.wantChat {
				t.Errorf("summarizer set = %v", m.pipelineOptions.Summarizer != nil)
			}
			if m.dims != 1536 {
				t.Errorf("dims = %d", m.dims)
			}
		})
	}
}
