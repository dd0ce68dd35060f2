package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

// TestFilterFlags: -category, -manufacturer, -tag, -source and the
// repeatable -meta become store filters, the -meta keys the allowlist; a
// filter the kind does not have is a usage error naming the flag.
func TestFilterFlags(t *testing.T) {
	catalog, faqs := testdataPath(t, "catalog.jsonl"), testdataPath(t, "faqs.jsonl")
	docs := testdataPath(t, "documents.jsonl")
	for _, tc := range []struct {
		name     string
		args     []string
		want     []storage.Filter
		wantKeys []string
		wantErr  string
	}{
		{name: "none", args: []string{"-catalog", catalog}},
		{
			name: "item filters", args: []string{"-catalog", catalog, "-tag", "Soja", "-category", " Fungicida ", "-manufacturer", "AgroVale"},
			want: []storage.Filter{{Field: storage.FieldCategory, Value: "Fungicida"}, {Field: storage.FieldManufacturer, Value: "AgroVale"}, {Field: storage.FieldTag, Value: "Soja"}},
		},
		{
			name: "metadata", args: []string{"-catalog", catalog, "-meta", "Formulacao=SC", "-meta", "embalagem = frasco de 1 L", "-meta", "formulacao=EC"},
			want: []storage.Filter{
				{Field: storage.FieldMetadata, Key: "formulacao", Value: "SC"}, {Field: storage.FieldMetadata, Key: "embalagem", Value: "frasco de 1 L"},
				{Field: storage.FieldMetadata, Key: "formulacao", Value: "EC"},
			},
			wantKeys: []string{"formulacao", "embalagem"},
		},
		{name: "faq category", args: []string{"-faqs", faqs, "-category", "entrega"}, want: []storage.Filter{{Field: storage.FieldCategory, Value: "entrega"}}},
		{
			name: "document source and metadata", args: []string{"-docs", docs, "-source", "equipe-tecnica", "-meta", "tema=milho"},
			want:     []storage.Filter{{Field: storage.FieldSource, Value: "equipe-tecnica"}, {Field: storage.FieldMetadata, Key: "tema", Value: "milho"}},
			wantKeys: []string{"tema"},
		},
		{name: "manufacturer on FAQs", args: []string{"-faqs", faqs, "-manufacturer", "AgroVale"}, wantErr: "-manufacturer: manufacturer applies to catalog items only"},
		{name: "tag on documents", args: []string{"-docs", docs, "-tag", "Soja"}, wantErr: "-tag: tag applies to catalog items only"},
		{name: "source on items", args: []string{"-catalog", catalog, "-source", "x"}, wantErr: "-source: source applies to documents only"},
		{name: "meta on FAQs", args: []string{"-faqs", faqs, "-meta", "tema=x"}, wantErr: "-meta tema: metadata does not apply to FAQs"},
		{name: "meta without value", args: []string{"-catalog", catalog, "-meta", "formulacao"}, wantErr: "want key=value"},
		{name: "meta bad key", args: []string{"-catalog", catalog, "-meta", "a b=c"}, wantErr: "-meta a b: metadata key"},
		{name: "long value", args: []string{"-catalog", catalog, "-category", strings.Repeat("a", 300)}, wantErr: "-category: value longer than 256 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseFlags(append(tc.args, "-q", "x"), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				_, errOut, code := runCLI(t, append(tc.args, "-q", "x")...)
				if code != exitUsage || !strings.Contains(errOut, tc.wantErr) {
					t.Errorf("run: exit %d, stderr %q", code, errOut)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cfg.filters, tc.want) || !slices.Equal(cfg.metaKeys, tc.wantKeys) {
				t.Errorf("filters %+v keys %v, want %+v keys %v", cfg.filters, cfg.metaKeys, tc.want, tc.wantKeys)
			}
		})
	}
}

// TestFilteredSearch: the filters reach the store (both legs); every hit
// satisfies them; the report echoes them, in JSON and in the human
// output.
func TestFilteredSearch(t *testing.T) {
	catalog := testdataPath(t, "catalog.jsonl")
	items, err := load.LoadCatalog(context.Background(), catalog, nil)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]storage.CatalogItem{}
	for _, it := range items {
		byID[it.ID] = it
	}
	args := []string{"-catalog", catalog, "-q", "soja", "-dims", testDims, "-limit", "20"}
	all := runJSON(t, args...)
	filtered := append(slices.Clone(args), "-category", "fungicida", "-meta", "formulacao=sc")
	for _, mode := range []string{"hybrid", "lexical", "vector"} {
		t.Run(mode, func(t *testing.T) {
			rep := runJSON(t, append(filtered, "-mode", mode)...)
			if len(rep.Hits) == 0 {
				t.Fatal("no hit")
			}
			for _, h := range rep.Hits {
				it := byID[h.ID]
				if lexical.Normalize(it.Category) != "fungicida" || lexical.Normalize(it.Metadata["formulacao"]) != "sc" {
					t.Errorf("hit %s: category %q formulacao %q", h.ID, it.Category, it.Metadata["formulacao"])
				}
			}
			want := []filterReport{{Field: "category", Value: "fungicida"}, {Field: "metadata", Key: "formulacao", Value: "sc"}}
			if !slices.Equal(rep.Filters, want) {
				t.Errorf("filters %+v, want %+v", rep.Filters, want)
			}
		})
	}
	if len(all.Hits) <= 3 || all.Filters != nil {
		t.Errorf("unfiltered: %d hits, filters %+v", len(all.Hits), all.Filters)
	}
	out, errOut, code := runCLI(t, filtered...)
	if code != exitOK || !strings.Contains(out, "category=fungicida, metadata.formulacao=sc") {
		t.Errorf("human output (exit %d, %s) lacks the filters line:\n%s", code, errOut, out)
	}
}

// TestChunkFilterFlags: -chunk key=value (repeatable) become the query's
// chunk filters; -extract legal runs the legal extractor on the documents
// indexed in memory, so that -chunk artigo=5 keeps a statute and
// -chunk artigo=99 drops it.
func TestChunkFilterFlags(t *testing.T) {
	law := filepath.Join(repoRoot(t), "rag", "ingest", "legal", "testdata", "lei_1234.txt")
	cfg, err := parseFlags([]string{"-docs", law, "-q", "x", "-chunk", "artigo=5", "-chunk", " tipo = inciso ", "-extract", "legal"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []storage.ChunkFilter{{Key: "artigo", Value: "5"}, {Key: "tipo", Value: "inciso"}}; !slices.Equal(cfg.chunkFilters, want) || !cfg.extractLegal {
		t.Errorf("chunk filters %+v extract %v, want %+v and legal", cfg.chunkFilters, cfg.extractLegal, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-docs", law, "-chunk", "artigo"}, "want key=value"},
		{[]string{"-docs", law, "-extract", "pdf"}, `-extract "pdf"`},
		{[]string{"-catalog", testdataPath(t, "catalog.jsonl"), "-extract", "legal"}, "-extract legal needs -docs"},
	} {
		if _, errOut, code := runCLI(t, append(tc.args, "-q", "x")...); code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	args := []string{"-docs", law, "-extract", "legal", "-q", "multa infração árvore", "-dims", testDims}
	rep := runJSON(t, append(args, "-chunk", "artigo=5")...)
	if len(rep.Hits) != 1 || !strings.Contains(rep.Hits[0].Snippet, "Art. 5") {
		t.Errorf("artigo=5: %+v", rep.Hits)
	}
	if want := []filterReport{{Field: "chunk", Key: "artigo", Value: "5"}}; !slices.Equal(rep.Filters, want) {
		t.Errorf("filters %+v, want %+v", rep.Filters, want)
	}
	if rep := runJSON(t, append(args, "-chunk", "artigo=99")...); len(rep.Hits) != 0 {
		t.Errorf("artigo=99: %d hits", len(rep.Hits))
	}
}

// TestDocIDFlags: -doc-id (repeatable) restricts a document search to
// those documents, reported as "document_id" filters; misuse is a usage
// error.
func TestDocIDFlags(t *testing.T) {
	docs := testdataPath(t, "documents.jsonl")
	args := []string{"-docs", docs, "-q", "milho receituário", "-dims", testDims, "-limit", "20"}
	all := runJSON(t, args...)
	if len(all.Hits) < 2 {
		t.Fatalf("unrestricted: %d hits, want at least 2", len(all.Hits))
	}
	want := all.Hits[len(all.Hits)-1].ID
	rep := runJSON(t, append(args, "-doc-id", want, "-doc-id", "no-such-document")...)
	if len(rep.Hits) != 1 || rep.Hits[0].ID != want {
		t.Errorf("-doc-id %s: hits %+v", want, rep.Hits)
	}
	if wantF := []filterReport{{Field: "document_id", Value: want}, {Field: "document_id", Value: "no-such-document"}}; !slices.Equal(rep.Filters, wantF) {
		t.Errorf("filters %+v, want %+v", rep.Filters, wantF)
	}
	many := []string{"-docs", docs}
	for i := range 101 {
		many = append(many, "-doc-id", fmt.Sprint("d", i))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-docs", docs, "-doc-id", " "}, "empty document ID"},
		{[]string{"-catalog", testdataPath(t, "catalog.jsonl"), "-doc-id", "doc-001"}, "-doc-id applies to -kind doc only"},
		{many, "at most 100"},
	} {
		if _, errOut, code := runCLI(t, append(tc.args, "-q", "x")...); code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args[:4], code, errOut, tc.want)
		}
	}
	out, errOut, code := runCLI(t, append(args, "-doc-id", want)...)
	if code != exitOK || !strings.Contains(out, "document_id="+want) {
		t.Errorf("human output (exit %d, %s) lacks the document_id filter:\n%s", code, errOut, out)
	}
}

// TestContextFlag: -context adds the hits formatted as a chat turn's
// context (rag.FormatContext), in -json and in the human report.
func TestContextFlag(t *testing.T) {
	args := []string{"-faqs", testdataPath(t, "faqs.jsonl"), "-q", "qual o prazo de entrega?", "-dims", testDims, "-limit", "3"}
	if rep := runJSON(t, args...); rep.Context != "" {
		t.Errorf("context without -context: %q", rep.Context)
	}
	rep := runJSON(t, append(args, "-context")...)
	if len(rep.Hits) == 0 {
		t.Fatal("no hit")
	}
	want := fmt.Sprintf("FAQs relevantes (%d): Q: %s | A: ", len(rep.Hits), rep.Hits[0].Title)
	if !strings.HasPrefix(rep.Context, "Contexto consolidado") || !strings.Contains(rep.Context, "\n\n"+want) ||
		!strings.HasSuffix(rep.Context, "\n\n"+rag.QuestionPrefix+"qual o prazo de entrega?") {
		t.Errorf("context %q, want the preamble, %q… and the question", rep.Context, want)
	}
	out, errOut, code := runCLI(t, append(args, "-context")...)
	if code != exitOK || !strings.Contains(out, "\ncontext:\n"+rep.Context) {
		t.Errorf("human output (exit %d, %s) lacks the context:\n%s", code, errOut, out)
	}
}
