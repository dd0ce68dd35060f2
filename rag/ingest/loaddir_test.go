package ingest_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
)

func TestLoadDir(t *testing.T) {
	ctx := context.Background()
	t.Run("testdata", func(t *testing.T) {
		src, err := ingest.LoadDir(ctx, filepath.Join(ragtest.RepoRoot(t), "testdata"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(src.Items) < 10 || len(src.FAQs) < 10 {
			t.Errorf("loaded %d items and %d FAQs, want the testdata catalog and FAQs", len(src.Items), len(src.FAQs))
		}
		var md, jsonl bool // documents/ and documents.jsonl both read
		for _, d := range src.Documents {
			md = md || filepath.Ext(d.ID) == ".md"
			jsonl = jsonl || filepath.Ext(d.ID) == ""
		}
		if !md || !jsonl {
			t.Errorf("documents from documents/ %v, from documents.jsonl %v; want both", md, jsonl)
		}
	})
	t.Run("bad records are reported, the others kept", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, dir, "faqs.jsonl", `{"id":"faq-1","question":"Qual o prazo?","answer":"Dois dias."}`+"\n"+`{"id":"faq-2","question":`+"\n")
		writeFile(t, dir, "documents/guia.md", "# Guia\n\nTexto do guia.\n")
		src, err := ingest.LoadDir(ctx, dir, nil)
		var bad load.RecordErrors
		if !errors.As(err, &bad) || len(bad) != 1 || !errors.Is(err, load.ErrSyntax) {
			t.Fatalf("err = %v, want one load.RecordErrors with a syntax error", err)
		}
		if len(src.Items) != 0 || len(src.FAQs) != 1 || len(src.Documents) != 1 || src.Documents[0].ID != "guia.md" {
			t.Errorf("src = %d items, %d FAQs, %d documents; want 0, 1 and guia.md", len(src.Items), len(src.FAQs), len(src.Documents))
		}
	})
	t.Run("nothing to load", func(t *testing.T) {
		if _, err := ingest.LoadDir(ctx, t.TempDir(), nil); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("empty dir: err = %v, want fs.ErrNotExist", err)
		}
		if _, err := ingest.LoadDir(ctx, filepath.Join(t.TempDir(), "absent"), nil); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("absent dir: err = %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := ingest.LoadDir(ctx, filepath.Join(ragtest.RepoRoot(t), "testdata"), nil); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
