package legal_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// The Indexer asks the extractor for sections.
var _ ingest.Sectioner = (*legal.Extractor)(nil)

// articleLineRE finds the lines that start an article.
var articleLineRE = regexp.MustCompile(`(?m)^Art\. (\d+)`)

// indexDefault indexes docs with the Indexer's default chunking and the
// legal extractor, and returns the store.
func indexDefault(t *testing.T, docs ...load.ParsedDocument) storage.Backend {
	t.Helper()
	store, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{
		Extractors: []ingest.Extractor{legal.New(legal.Options{})},
	})
	if _, err := ix.IndexDocuments(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	return store
}

// TestDefaultChunkingByArticle indexes the law with the default chunk
// sizes (with which recursive chunks held several articles and a filter on
// all but the first missed it): every article is reachable by its artigo
// filter, and no chunk spans two articles.
func TestDefaultChunkingByArticle(t *testing.T) {
	ctx := context.Background()
	d := lei(t)
	store := indexDefault(t, d)
	chunks, err := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		arts := articleLineRE.FindAllStringSubmatch(c.Content, -1)
		if len(arts) > 1 {
			t.Errorf("chunk %d spans %d articles: %q", c.Seq, len(arts), c.Content)
		}
		if len(arts) == 1 && c.Metadata[legal.KeyArtigo] != arts[0][1] {
			t.Errorf("chunk %d holds Art. %s, labelled artigo=%q", c.Seq, arts[0][1], c.Metadata[legal.KeyArtigo])
		}
	}
	s := rag.NewSearcher(store, ragtest.HashEmbedder(t), rag.SearcherOptions{})
	all := math.Inf(1)
	for n := 1; n <= 7; n++ {
		art := fmt.Sprint(n)
		for _, legs := range []rag.Legs{rag.LegsLexical, rag.LegsVector, rag.LegsHybrid} {
			res, err := s.SearchDocuments(ctx, rag.Query{
				Text: "lei", Legs: legs, VectorThreshold: &all,
				ChunkFilters: []storage.ChunkFilter{{Key: legal.KeyArtigo, Value: art}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 || res.Hits[0].ID != d.ID {
				t.Errorf("artigo=%s %s: hits %v, want the law", art, legs, hitIDs(res.Hits))
				continue
			}
			if sn := res.Hits[0].Snippet; legs != rag.LegsVector && !strings.Contains(sn, "Art. "+art+"º") {
				t.Errorf("artigo=%s %s: snippet %q outside the article", art, legs, sn)
			}
		}
	}
}

// TestLongArticle: an article longer than a chunk is cut within itself,
// each piece labelled with the paragraph its own text starts in; the next
// article starts a chunk.
func TestLongArticle(t *testing.T) {
	var b strings.Builder
	b.WriteString("LEI Nº 77, DE 2 DE MAIO DE 2021\n\nArt. 1º Esta Lei trata das podas.\n\nArt. 2º A poda observará o seguinte:\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "§ %dº A poda da árvore de número %d será registrada em livro próprio, com a data, o nome do guardião, a espécie e o motivo, e o registro ficará disponível ao órgão ambiental por cinco anos.\n", i, i)
	}
	b.WriteString("Art. 3º Esta Lei entra em vigor na data de sua publicação.\n")
	d := load.ParsedDocument{Document: storage.Document{ID: "lei-77", Title: "Lei nº 77", Content: b.String()}}
	store := indexDefault(t, d)
	chunks, err := store.Chunks(context.Background(), storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range chunks {
		m := c.Metadata
		got = append(got, m[legal.KeyArtigo]+"/"+m[legal.KeyParagrafo])
		if llm.EstimateTokens(c.Content) > 500 /* the default MaxTokens */ {
			t.Errorf("chunk %d: %d tokens, more than the default %d", c.Seq, llm.EstimateTokens(c.Content), 500 /* the default MaxTokens */)
		}
	}
	// The act's name; Art. 1º; Art. 2º (about 2,500 runes) cut at a
	// paragraph, with overlap; Art. 3º.
	if len(got) < 5 || got[0] != "/" || got[1] != "1/" || got[2] != "2/" || got[len(got)-1] != "3/" {
		t.Fatalf("artigo/paragrafo per chunk: %v", got)
	}
	for _, g := range got[3 : len(got)-1] {
		if !strings.HasPrefix(g, "2/") || g == "2/" {
			t.Errorf("artigo/paragrafo per chunk: %v, want the later pieces of Art. 2º labelled with a paragraph", got)
		}
	}
}

func TestSections(t *testing.T) {
	t.Run("plain text", func(t *testing.T) {
		d := lei(t)
		secs := legal.Sections(d.Title, d.Content, d.Sections)
		var got []string
		for _, s := range secs {
			if s.Level != 1 {
				t.Errorf("section %q: level %d, want 1", s.HeadingPath, s.Level)
			}
			got = append(got, strings.Join(s.HeadingPath, " › ")+" | "+firstLine(d.Content[s.Start:s.End]))
		}
		want := []string{
			"CAPÍTULO I › Art. 1º | CAPÍTULO I",
			"CAPÍTULO I › Art. 2º | Art. 2º Para os fins desta Lei, considera-se:",
			"CAPÍTULO II › Art. 3º | CAPÍTULO II",
			"CAPÍTULO II › Art. 4º | Art. 4º É proibida a poda drástica sem autorização do órgão ambiental.",
			"CAPÍTULO II › Art. 5º | Art. 5º Constitui infração administrativa danificar árvore de pomar urbano.",
			"CAPÍTULO II › Art. 6º | Art. 6º A multa será recolhida ao fundo municipal de meio ambiente. Tema cobrado em concurso público (CEBRASPE 2024).",
			"CAPÍTULO II › Art. 7º | Art. 7º Esta Lei entra em vigor na data de sua publicação.",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("path | first line (-want +got):\n%s", diff)
		}
		if secs[len(secs)-1].End != len(d.Content) {
			t.Errorf("last section ends at %d, want %d", secs[len(secs)-1].End, len(d.Content))
		}
	})
	t.Run("markdown", func(t *testing.T) {
		md := "# LEI Nº 9, DE 1º DE ABRIL DE 2020\n\nEmenta.\n\n## CAPÍTULO I\n\n**Art. 1º** Primeiro.\n\n### § 1º\n\nParágrafo.\n\n**Art. 1.000** Milésimo.\n\nArt. 5º-A Acrescido.\n\n## Notas\n\nNota.\n"
		d, err := load.ParseDocument("lei.md", []byte(md), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range legal.Sections(d.Title, d.Content, d.Sections) {
			got = append(got, fmt.Sprintf("%d %s | %s", s.Level, strings.Join(s.HeadingPath, " › "), firstLine(d.Content[s.Start:s.End])))
		}
		title := d.Sections[0].HeadingPath[0]
		want := []string{
			"1 " + title + " | # LEI Nº 9, DE 1º DE ABRIL DE 2020",
			"1 " + title + " › CAPÍTULO I › Art. 1º | ## CAPÍTULO I",
			// A heading naming a paragraph keeps the loader's level.
			"3 " + title + " › CAPÍTULO I › Art. 1º › § 1º | ### § 1º",
			"1 " + title + " › CAPÍTULO I › Art. 1.000 | **Art. 1.000** Milésimo.",
			"1 " + title + " › CAPÍTULO I › Art. 5º-A | Art. 5º-A Acrescido.",
			"1 " + title + " › Notas | ## Notas",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("level path | first line (-want +got):\n%s", diff)
		}
	})
	t.Run("no statute", func(t *testing.T) {
		for _, c := range []struct{ title, content string }{
			{"Manual", "O guardião cuida do pomar.\n\nArt. 5º da lei municipal trata das multas."},
			{"Manual", "Sem artigos.\n\nCAPÍTULO I\n\nTexto."},
			{"Lei nº 1", "Lei sem artigos."},
		} {
			if secs := legal.Sections(c.title, c.content, nil); secs != nil {
				t.Errorf("%q: sections %v, want nil", c.content, secs)
			}
		}
		// Two article lines make a statute without a named act.
		if secs := legal.Sections("Trecho", "Art. 1º Um.\nArt. 2º Dois.", nil); len(secs) != 2 || secs[1].HeadingPath[0] != "Art. 2º" {
			t.Errorf("sections %v, want one per article", secs)
		}
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
