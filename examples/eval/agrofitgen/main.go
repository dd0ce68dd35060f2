// Command agrofitgen generates the AGROFIT evaluation query set and its
// graded judgements from the registry itself (MAPA AGROFIT open data), so
// that the judgements are derived data that anyone can regenerate:
//
//	go run ./examples/eval/agrofitgen -catalog ../shared/data/agrofit/catalog.jsonl -out testdata/eval
//
// (or `go generate ./examples/eval`). It writes agrofit_queries.jsonl
// ({"id","text","type","split"}) and agrofit_qrels.tsv.gz
// (query_id doc_id grade, gzip-compressed). The output depends only on the catalog and
// -seed.
//
// # Query types and judgements
//
//   - class_crop, "fungicida para uva": grade 2 for items of the class
//     (any component of a compound category, "Acaricida/Fungicida"; a
//     microbiological fungicide is a fungicide) registered for the crop
//     (tag equal to it or starting with it, "Arroz irrigado" for arroz);
//     grade 1 for items of the class registered for "Todas as culturas".
//   - pest_crop, "lagarta-do-cartucho no milho": grade 2 for items whose
//     biological targets include the pest (same scientific name, or the
//     same common name) and registered for the crop; grade 1 for those
//     registered for "Todas as culturas". The pest is named by the
//     registry's most frequent common name, by a popular alias for ten
//     major pests, or (one time in ten) by its scientific name.
//   - ingredient, "azoxistrobina": grade 2 for items containing the
//     active ingredient (its base name at a word start, so "glifosato"
//     covers every glyphosate salt).
//   - company_class, "herbicida da Syngenta": grade 2 for items of the
//     class whose registrant's name contains the company's short name.
//   - colloquial, "remédio pra fungo na videira": a class × crop question in
//     a grower's words (lexicon.go); judged as class_crop.
//   - no_accent, "acaro no algodao": a class × crop, pest × crop or
//     colloquial query that had accents, typed without them.
//   - typo, "fungisida pra uva": a class × crop or colloquial query with
//     one spelling or typing mistake in a word of 5+ letters (c/s before
//     e/i, ç/ss, a dropped h, a letter dropped, doubled or swapped).
//
// A query needs at least 3 grade-2 items; duplicates (after accent
// folding) are skipped. The split (tune or heldout) is eval.SplitOf(id),
// a hash of the query ID.
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/rag/load"
)

func main() {
	catalog := flag.String("catalog", "../shared/data/agrofit/catalog.jsonl", "AGROFIT catalog `file` (JSONL)")
	out := flag.String("out", "testdata/eval", "output `directory`")
	seed := flag.Uint64("seed", 20240607, "random `seed`")
	flag.Parse()
	if err := run(*catalog, *out, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "agrofitgen: %v\n", err)
		os.Exit(1)
	}
}

func run(catalog, out string, seed uint64) error {
	items, err := load.LoadCatalog(context.Background(), catalog, nil)
	if err != nil {
		return err
	}
	g := newGenerator(items, seed)
	g.run()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "agrofit_queries.jsonl"), func(w *bufio.Writer) error { return eval.WriteQueries(w, g.queries) }); err != nil {
		return err
	}
	// The judgements are complete (every item of a class registered for a
	// crop is judged), about 3 MB of TSV: they are stored gzip-compressed,
	// and the eval loaders read .gz transparently. A fixed header keeps the
	// file byte-identical across runs.
	if err := writeFile(filepath.Join(out, "agrofit_qrels.tsv.gz"), func(w *bufio.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return err
		}
		zw.Name = "agrofit_qrels.tsv"
		if err := eval.WriteQrels(zw, g.qrels); err != nil {
			return err
		}
		return zw.Close()
	}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "agrofitgen: %d items, %d queries, %d judgements", len(g.items), len(g.queries), len(g.qrels))
	for _, c := range counts {
		fmt.Fprintf(os.Stderr, " %s=%d", c.typ, g.perType[c.typ])
	}
	fmt.Fprintln(os.Stderr)
	return nil
}

func writeFile(path string, fn func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fn(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
