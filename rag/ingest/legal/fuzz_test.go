package legal_test

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

var (
	artigoValue = regexp.MustCompile(`^\d+(-[A-Z])?$`)
	incisoValue = regexp.MustCompile(`^[IVXLCDM]+$`)
)

// FuzzExtract cuts arbitrary text into chunks (with arbitrary, possibly
// wrong, offsets) and checks that extraction never fails or panics and
// always writes well-formed values.
func FuzzExtract(f *testing.F) {
	law, err := os.ReadFile("testdata/lei_1234.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(law), 120, 7)
	f.Add("Art. 5º-A\n§ 1º x\nIV – y\nb) z", 5, 0)
	f.Add("TÍTULO ÚNICO\nCAPÍTULO 2\nParágrafo único.", 3, -3)
	f.Add("\xff\xfeArt. 9\x00\n", 2, 1)
	f.Fuzz(func(t *testing.T, text string, size, shift int) {
		if size < 2 || size > 2000 {
			size = 50
		}
		r, err := chunk.NewRecursive(chunk.RecursiveOptions{Size: size, Overlap: size / 3})
		if err != nil {
			t.Skip()
		}
		var chunks []storage.Chunk
		for i, c := range r.Split(text) {
			start := c.Start
			if i%2 == 1 {
				start += shift // some offsets wrong
			}
			chunks = append(chunks, storage.Chunk{Seq: i, Content: c.Text, Start: start})
		}
		doc := storage.Document{ID: "d", Title: text[:min(len(text), 40)], Content: text}
		if err := legal.New(legal.Options{}).Extract(context.Background(), &doc, chunks); err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			m := c.Metadata
			if m[legal.KeyTipo] == "" {
				t.Fatalf("chunk %d without tipo: %v", c.Seq, m)
			}
			if v, ok := m[legal.KeyArtigo]; ok && !artigoValue.MatchString(v) {
				t.Fatalf("artigo %q", v)
			}
			if v, ok := m[legal.KeyInciso]; ok && !incisoValue.MatchString(v) {
				t.Fatalf("inciso %q", v)
			}
		}
	})
}

// FuzzSections reads arbitrary text as Markdown and checks that the
// sections of a statute are always valid for the structural splitter.
func FuzzSections(f *testing.F) {
	law, err := os.ReadFile("testdata/lei_1234.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(law))
	f.Add("# LEI Nº 9\n\n## CAPÍTULO I\n\n**Art. 1º** a\n\n### § 1º\n\nb\n\nArt. 1.000 c\n\n## Notas\n")
	f.Add("Art. 1º\nArt. 2º\n\xff")
	st, err := chunk.NewStructural(chunk.StructuralOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := load.ParseDocument("lei.md", []byte(text), nil)
		if err != nil {
			t.Skip()
		}
		secs := legal.Sections(d.Title, d.Content, d.Sections)
		if _, err := st.Split(d.Content, secs); err != nil {
			t.Fatalf("sections %+v: %v", secs, err)
		}
	})
}
