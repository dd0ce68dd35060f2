package postgres_test

// Benchmarks on seeded data: AGROFIT catalog items (../shared/data) replicated
// to 10k or 100k items, each with one chunk whose embedding is the
// hash-embedded item text (not uniform random vectors: HNSW recall on random
// vectors is meaningless, DESIGN §12). Data is bulk-loaded with COPY into a
// schema named after the size and dimensions (hrbench_<n>_<dims>), indexes
// are built after loading, and the schema is kept between runs so that the
// 100k HNSW build (minutes) is paid once; set HYBRIDRAG_BENCH_RESET=1 to
// rebuild it. The 100k sizes run only with HYBRIDRAG_BENCH_LARGE=1.
//
//	HYBRIDRAG_BENCH_LARGE=1 go test ./storage/postgres -run '^$' -bench . -benchtime 200x
//
// Every benchmark reports p50_ms and p95_ms over its iterations; vector
// benchmarks on the HNSW index also report recall@10 against exact search.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

const benchTenant = "bench"

// catalogPath finds the AGROFIT catalog beside the checkout (CI and the
// project's machines keep ../shared next to it).
func catalogPath(tb testing.TB) string {
	tb.Helper()
	for _, p := range []string{
		os.Getenv("HYBRIDRAG_AGROFIT_CATALOG"),
		"../../../shared/data/agrofit/catalog.jsonl",
		"/work/shared/data/agrofit/catalog.jsonl",
	} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	testenv.Skip(tb, testenv.Data, "AGROFIT catalog not found; set HYBRIDRAG_AGROFIT_CATALOG to shared/data/agrofit/catalog.jsonl")
	return ""
}

var (
	catalogOnce  sync.Once
	catalogItems []storage.CatalogItem
	catalogErr   error
)

func loadCatalog(tb testing.TB) []storage.CatalogItem {
	tb.Helper()
	path := catalogPath(tb)
	catalogOnce.Do(func() {
		f, err := os.Open(filepath.Clean(path))
		if err != nil {
			catalogErr = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var rec struct {
				ID, Name, Description, Category, Manufacturer, Status string
				Tags                                                  []string
				Price                                                 *float64
				Metadata                                              map[string]string
				Files                                                 []struct{ Name, Text string }
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				catalogErr = err
				return
			}
			st, err := storage.ParseStatus(rec.Status)
			if err != nil {
				catalogErr = err
				return
			}
			it := storage.CatalogItem{ID: rec.ID, Name: rec.Name, Description: rec.Description, Category: rec.Category,
				Manufacturer: rec.Manufacturer, Tags: rec.Tags, Price: rec.Price, Status: st, Metadata: rec.Metadata}
			for _, fl := range rec.Files {
				it.Files = append(it.Files, storage.CatalogFile{ItemID: rec.ID, Name: fl.Name, Text: fl.Text})
			}
			catalogItems = append(catalogItems, it)
		}
		catalogErr = sc.Err()
	})
	if catalogErr != nil {
		tb.Fatalf("load catalog: %v", catalogErr)
	}
	return catalogItems
}

// words splits normalized text into words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(lexical.Normalize(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// hashEmbed is a deterministic bag-of-words embedding (feature hashing of
// words and word pairs with signed buckets, unit length): texts sharing
// words get close vectors, like a real text embedding for this purpose.
func hashEmbed(text string, dims int) []float32 {
	v := make([]float32, dims)
	ws := words(text)
	add := func(tok string, w float32) {
		h := fnv.New64a()
		h.Write([]byte(tok))
		x := h.Sum64()
		if x>>63 == 1 {
			w = -w
		}
		v[x%uint64(dims)] += w
	}
	for i, w := range ws {
		add(w, 1)
		if i > 0 {
			add(ws[i-1]+" "+w, 0.5)
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// benchItem returns the i-th item of the synthetic catalog. The first
// len(cat) items are the catalog itself; item i beyond is a new product
// built from three real ones: the fields of catalog item j, the files
// (crops, pests) of another item and 25 words of a third, so items are
// distinct texts with realistic overlaps (replicating the catalog verbatim
// would make recall@10 a lottery among near-identical vectors).
func benchItem(cat []storage.CatalogItem, catWords [][]string, i int) storage.CatalogItem {
	j, r := i%len(cat), i/len(cat)
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	it := cat[j]
	it.ID = fmt.Sprintf("%s-r%03d", it.ID, r)
	if r > 0 {
		it.Files = cat[rng.IntN(len(cat))].Files
		other := catWords[rng.IntN(len(catWords))]
		extra := make([]string, 25)
		for k := range extra {
			extra[k] = other[rng.IntN(len(other))]
		}
		it.Name = fmt.Sprintf("%s lote %d", it.Name, r)
		it.Description += " " + strings.Join(extra, " ")
	}
	if rng.IntN(20) == 0 {
		it.Status = storage.StatusInactive
	}
	it.CreatedAt = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(2*365*24*3600)) * time.Second)
	it.UpdatedAt = it.CreatedAt
	files := make([]storage.CatalogFile, len(it.Files))
	for k, f := range it.Files {
		files[k] = storage.CatalogFile{ItemID: it.ID, Name: f.Name, Text: f.Text}
	}
	it.Files = files
	return it
}

// catalogWords returns the words of each catalog item's search text.
func catalogWords(cat []storage.CatalogItem) [][]string {
	out := make([][]string, len(cat))
	for i := range cat {
		out[i] = words(storage.ItemSearchText(&cat[i]))
	}
	return out
}

// benchDB is a seeded schema.
type benchDB struct {
	pool  *pgxpool.Pool
	db    *postgres.DB
	hnsw  *postgres.Store
	exact *postgres.Store
	n     int
	dims  int
	cat   []storage.CatalogItem
	words [][]string
	// geom, when set, gives the chunks clustered synthetic vectors instead
	// of hash embeddings (HYBRIDRAG_BENCH_GEOM=clustered, see geometry).
	geom *geometry
}

var (
	benchMu  sync.Mutex
	benchDBs = map[string]*benchDB{}
)

// benchSizes are the catalog sizes of the benchmarks: 10k, with
// HYBRIDRAG_BENCH_LARGE=1 also 100k, or the comma-separated list in
// HYBRIDRAG_BENCH_SIZES (1000000 for the million-item runs: about 40 GB of
// disk and 40 minutes to seed).
func benchSizes(b *testing.B) []int {
	if list := os.Getenv("HYBRIDRAG_BENCH_SIZES"); list != "" {
		var sizes []int
		for _, f := range strings.Split(list, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("HYBRIDRAG_BENCH_SIZES=%q: %q is not a size", list, f)
			}
			sizes = append(sizes, n)
		}
		return sizes
	}
	if os.Getenv("HYBRIDRAG_BENCH_LARGE") == "1" {
		return []int{10_000, 100_000}
	}
	return []int{10_000}
}

func benchDims() int {
	if d, err := strconv.Atoi(os.Getenv("HYBRIDRAG_BENCH_DIMS")); err == nil && d > 0 {
		return d
	}
	return 1536
}

// openBench returns the schema for n items of dims, seeding it when needed.
func openBench(b *testing.B, n, dims int) *benchDB {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprint(n, dims, os.Getenv("HYBRIDRAG_BENCH_TOAST"), os.Getenv("HYBRIDRAG_BENCH_EF"),
		os.Getenv("HYBRIDRAG_BENCH_HALF"), os.Getenv("HYBRIDRAG_BENCH_GEOM"))
	if bd := benchDBs[key]; bd != nil {
		return bd
	}
	dsn := testDSN(b)
	cat := loadCatalog(b)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	postgres.ConfigurePool(cfg)
	ctx := context.Background()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	schema := fmt.Sprintf("hrbench_%d_%d", n, dims)
	// HYBRIDRAG_BENCH_TOAST=1 measures pgvector's default (TOASTed) storage
	// instead of STORAGE PLAIN, in its own schema.
	toast := os.Getenv("HYBRIDRAG_BENCH_TOAST") == "1"
	if toast {
		schema += "_toast"
	}
	// HYBRIDRAG_BENCH_GEOM=clustered gives the chunks the clustered
	// vectors of geometry instead of hash embeddings, in its own schema.
	var geom *geometry
	switch g := os.Getenv("HYBRIDRAG_BENCH_GEOM"); g {
	case "":
	case "clustered":
		geom = newGeometry(dims)
		schema += "_clustered"
	default:
		b.Fatalf("HYBRIDRAG_BENCH_GEOM=%q: want clustered or nothing", g)
	}
	// HYBRIDRAG_BENCH_HALF=1 sets Options.HalfPrecisionIndex, in its own
	// schema.
	half := os.Getenv("HYBRIDRAG_BENCH_HALF") == "1"
	if half {
		schema += "_half"
	}
	// HYBRIDRAG_BENCH_EF sets Options.EfSearch (hnsw.ef_search).
	ef, _ := strconv.Atoi(os.Getenv("HYBRIDRAG_BENCH_EF"))
	db := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: dims, StorageDefault: toast, EfSearch: ef, HalfPrecisionIndex: half})
	exact := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: dims, ExactSearch: true})
	if os.Getenv("HYBRIDRAG_BENCH_RESET") == "1" {
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	hs, _ := db.Tenant(benchTenant)
	es, _ := exact.Tenant(benchTenant)
	bd := &benchDB{pool: pool, db: db, hnsw: hs, exact: es, n: n, dims: dims, cat: cat, words: catalogWords(cat), geom: geom}
	c, err := hs.Counts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if c.Items != n || c.Embedded != n {
		if c.Items != 0 {
			if _, err := pool.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
				b.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if err := bd.seed(ctx, schema); err != nil {
			b.Fatalf("seed %s: %v", schema, err)
		}
		b.Logf("seeded %s (%d items × %d dims) in %v", schema, n, dims, time.Since(start).Round(time.Second))
	}
	benchDBs[key] = bd
	return bd
}

// seed bulk-loads the schema: COPY without the HNSW index, then builds it
// once, with a large maintenance_work_mem. The word index is maintained by
// the owner table's trigger during the COPY.
func (bd *benchDB) seed(ctx context.Context, schema string) error {
	conn, err := bd.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if err := bd.db.BeginBulkLoad(ctx); err != nil {
		return err
	}
	copyStart := time.Now()
	const per = 2000
	// The next batch is generated and embedded while the server copies
	// this one, as a loader fed by an embedding service would.
	type batch struct {
		lo, hi int
		items  []storage.CatalogItem
		vecs   [][]float32
	}
	batches := make(chan batch, 1)
	var genTime time.Duration
	gctx, stop := context.WithCancel(ctx)
	defer func() {
		for range batches {
		}
	}()
	defer stop()
	go func() {
		defer close(batches)
		for lo := 0; lo < bd.n; lo += per {
			start := time.Now()
			hi := min(lo+per, bd.n)
			items, vecs := bd.generate(lo, hi)
			genTime += time.Since(start)
			select {
			case batches <- batch{lo, hi, items, vecs}:
			case <-gctx.Done():
				return
			}
		}
	}()
	for b := range batches {
		lo, items, vecs := b.lo, b.items, b.vecs
		var itemRows, fileRows, chunkRows [][]any
		for k := range items {
			it := &items[k]
			fv := storeutil.ItemFilterValues(it)
			meta := it.Metadata
			if meta == nil {
				meta = map[string]string{}
			}
			fvMeta := fv.Metadata
			if fvMeta == nil {
				fvMeta = map[string]string{}
			}
			tags := it.Tags
			if tags == nil {
				tags = []string{}
			}
			itemRows = append(itemRows, []any{benchTenant, it.ID, it.Name, it.Description, it.Category, it.Manufacturer,
				tags, it.Price, it.Status.Active(), meta, storage.ItemSearchText(it), fv.Category, fv.Manufacturer,
				fv.Tags, fvMeta, it.CreatedAt, it.UpdatedAt})
			for s, f := range it.Files {
				fileRows = append(fileRows, []any{benchTenant, it.ID, int32(s), f.Name, f.Text})
			}
			content := it.Name + "\n" + it.Description
			chunkMeta := map[string]string{"grupo": benchGroup(lo + k)}
			chunkRows = append(chunkRows, []any{benchTenant, it.ID, "item", int32(0), content, storage.ContentHash(content),
				pgvector.NewVector(vecs[k]), chunkMeta, storeutil.NormalizeChunkMetadata(chunkMeta)})
		}
		err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, "items"}, []string{"tenant_id", "id", "name", "description",
				"category", "manufacturer", "tags", "price", "active", "metadata", "search_text", "category_norm",
				"manufacturer_norm", "tags_norm", "metadata_norm", "created_at", "updated_at"}, pgx.CopyFromRows(itemRows)); err != nil {
				return fmt.Errorf("copy items: %w", err)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, "item_files"}, []string{"tenant_id", "item_id", "seq", "name", "body"},
				pgx.CopyFromRows(fileRows)); err != nil {
				return fmt.Errorf("copy files: %w", err)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, "item_chunks"}, []string{"tenant_id", "owner_id", "source", "seq",
				"content", "content_hash", "embedding", "metadata", "metadata_norm"}, pgx.CopyFromRows(chunkRows)); err != nil {
				return fmt.Errorf("copy chunks: %w", err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "bench seed: COPY %d items: %v (generated and embedded beside it in %v)\n", bd.n,
		time.Since(copyStart).Round(100*time.Millisecond), genTime.Round(100*time.Millisecond))
	// The HNSW graph of n vectors fits in about 1.3 × n × (4 × dims + 128)
	// bytes; at least 1 GB, at most 12 GB of this machine's 24.
	mwm := min(max(1.3*float64(bd.n)*float64(4*bd.dims+128)/1024, 1<<20), 12<<20)
	endStart := time.Now()
	err = bd.db.EndBulkLoad(ctx, postgres.BulkLoadOptions{
		MaintenanceWorkMemKB: int(mwm),
		ParallelWorkers:      1,
		Progress: func(step string, took time.Duration) {
			if took > time.Second {
				fmt.Fprintf(os.Stderr, "bench seed: %s: %v\n", step, took.Round(100*time.Millisecond))
			}
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench seed: EndBulkLoad: %v\n", time.Since(endStart).Round(100*time.Millisecond))
	rows, err := conn.Query(ctx, `SELECT c.relname::text, pg_total_relation_size(c.oid) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND pg_total_relation_size(c.oid) > 1048576 ORDER BY 2 DESC`, schema)
	if err != nil {
		return err
	}
	sizes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Table string
		Bytes int64
	}])
	if err != nil {
		return err
	}
	var total int64
	for _, s := range sizes {
		fmt.Fprintf(os.Stderr, "bench seed: %s: %.1f MB\n", s.Table, float64(s.Bytes)/1e6)
		total += s.Bytes
	}
	fmt.Fprintf(os.Stderr, "bench seed: schema %s: %.2f GB\n", schema, float64(total)/1e9)
	rows, err = conn.Query(ctx, `SELECT c.relname::text, pg_relation_size(c.oid) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'i' AND c.relname LIKE '%hnsw' ORDER BY 2 DESC LIMIT 1`, schema)
	if err != nil {
		return err
	}
	indexes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Index string
		Bytes int64
	}])
	if err != nil {
		return err
	}
	for _, s := range indexes {
		fmt.Fprintf(os.Stderr, "bench seed: index %s: %.1f MB\n", s.Index, float64(s.Bytes)/1e6)
	}
	return nil
}

// generate returns items lo..hi-1 of the synthetic catalog and the hash
// embeddings of their search text, built on every core.
func (bd *benchDB) generate(lo, hi int) ([]storage.CatalogItem, [][]float32) {
	items := make([]storage.CatalogItem, hi-lo)
	vecs := make([][]float32, hi-lo)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for k := w; k < len(items); k += workers {
				items[k] = benchItem(bd.cat, bd.words, lo+k)
				if bd.geom != nil {
					vecs[k] = bd.geom.item(lo + k)
				} else {
					vecs[k] = hashEmbed(storage.ItemSearchText(&items[k]), bd.dims)
				}
			}
		})
	}
	wg.Wait()
	return items, vecs
}

// latencies collects per-operation durations and reports percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	b.ReportMetric(l.quantile(0.50), "p50_ms")
	b.ReportMetric(l.quantile(0.95), "p95_ms")
}

// quantile returns the p-quantile of l in milliseconds (0 when empty).
func (l latencies) quantile(p float64) float64 {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return float64(s[max(i, 0)]) / float64(time.Millisecond)
}

// lexicalQueries are term lists drawn from the catalog: two or three words
// of real items, so a mix of rare and common words; commonQueries are the
// worst case, words in most items.
func lexicalQueries(bd *benchDB, n int) [][]string {
	rng := rand.New(rand.NewPCG(11, 12))
	out := make([][]string, n)
	for i := range out {
		it := bd.cat[rng.IntN(len(bd.cat))]
		ws := words(storage.ItemSearchText(&it))
		var long []string
		for _, w := range ws {
			if len(w) >= 4 {
				long = append(long, w)
			}
		}
		k := 2 + rng.IntN(2)
		for range k {
			out[i] = append(out[i], long[rng.IntN(len(long))])
		}
	}
	return out
}

var commonQueries = [][]string{
	{"controle"}, {"culturas"}, {"produto", "classe"}, {"lagarta", "soja"}, {"ferrugem", "cafe"},
	{"herbicida", "milho"}, {"toxicologica"}, {"ambiente", "perigoso"},
}

// substringQueries are terms inside most records' words or made of
// separators: short substrings, units and product codes.
var substringQueries = [][]string{
	{"a"}, {"de"}, {"2,4-d"}, {"2,4-d", "soja"}, {"%"}, {"e", "soja", "milho"}, {"ca"}, {"l/ha"},
}

func BenchmarkLexicalItems(b *testing.B) {
	for _, n := range benchSizes(b) {
		for _, set := range []string{"mixed", "common", "substrings"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, set), func(b *testing.B) {
				bd := openBench(b, n, benchDims())
				qs := commonQueries
				switch set {
				case "mixed":
					qs = lexicalQueries(bd, 200)
				case "substrings":
					qs = substringQueries
				}
				ctx := context.Background()
				// Warm up the plan cache and the buffers.
				for _, q := range qs[:min(len(qs), 20)] {
					if _, err := bd.hnsw.Items().Search(ctx, storage.LexicalQuery{Terms: q, Limit: 60}); err != nil {
						b.Fatal(err)
					}
				}
				lat := make(latencies, 0, b.N)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					res, err := bd.hnsw.Items().Search(ctx, storage.LexicalQuery{Terms: qs[i%len(qs)], Limit: 60})
					lat = append(lat, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					_ = res
				}
				lat.report(b)
			})
		}
	}
}

// vectorQueries returns n query vectors of one of two kinds:
//   - "short": a catalog item's name and four words of its text, like a
//     user question (low contrast: a short bag of words is about equally
//     close to many long texts, the hard case for HNSW);
//   - "doc": a synthetic item's whole text with a fifth of its words
//     dropped (document-to-document similarity, like a related-item
//     search).
func vectorQueries(bd *benchDB, kind string, n int) [][]float32 {
	rng := rand.New(rand.NewPCG(21, 22))
	out := make([][]float32, n)
	if bd.geom != nil {
		for i := range out {
			out[i] = bd.geom.query(rng, kind, bd.n)
		}
		return out
	}
	for i := range out {
		var q []string
		if kind == "doc" {
			it := benchItem(bd.cat, bd.words, rng.IntN(bd.n))
			for _, w := range words(storage.ItemSearchText(&it)) {
				if rng.IntN(5) > 0 {
					q = append(q, w)
				}
			}
		} else {
			it := bd.cat[rng.IntN(len(bd.cat))]
			ws := words(storage.ItemSearchText(&it))
			q = []string{it.Name}
			for range 4 {
				q = append(q, ws[rng.IntN(len(ws))])
			}
		}
		out[i] = hashEmbed(strings.Join(q, " "), bd.dims)
	}
	return out
}

func BenchmarkVectorTop10(b *testing.B) {
	for _, n := range benchSizes(b) {
		for _, run := range []struct{ mode, queries string }{{"hnsw", "short"}, {"hnsw", "doc"}, {"exact", "short"}} {
			mode := run.mode
			b.Run(fmt.Sprintf("n=%d/%s/q=%s", n, mode, run.queries), func(b *testing.B) {
				bd := openBench(b, n, benchDims())
				store := bd.hnsw
				if mode == "exact" {
					store = bd.exact
				}
				qs := vectorQueries(bd, run.queries, 50)
				ctx := context.Background()
				search := func(s *postgres.Store, v []float32) []storage.ChunkMatch {
					res, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: v, Limit: 10, MaxDistance: storage.NoThreshold})
					if err != nil {
						b.Fatal(err)
					}
					return res
				}
				for _, v := range qs[:10] {
					search(store, v)
				}
				lat := make(latencies, 0, b.N)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					search(store, qs[i%len(qs)])
					lat = append(lat, time.Since(start))
				}
				lat.report(b)
				// After the loop: b.Loop resets metrics reported before it.
				if mode == "hnsw" {
					// recall@10 counts the exact top 10 found; recall@10_ties
					// counts results at least as close as the exact 10th, so
					// equidistant chunks are not misses.
					var hits, ties, total int
					for _, v := range qs {
						exact := search(bd.exact, v)
						want := matchIDs(exact)
						got := search(bd.hnsw, v)
						for _, m := range got {
							if slices.Contains(want, m.Chunk.Owner.ID) {
								hits++
							}
							if len(exact) > 0 && m.Distance <= exact[len(exact)-1].Distance+1e-6 {
								ties++
							}
						}
						total += len(want)
					}
					b.ReportMetric(float64(hits)/float64(total), "recall@10")
					b.ReportMetric(float64(ties)/float64(total), "recall@10_ties")
				}

			})
		}
	}
}

// BenchmarkApplyAgrofit ingests the 4,220 AGROFIT items through Apply, in
// batches of 100 items, each with two embedded chunks (item fields and file
// text), into a fresh schema with its HNSW indexes live: the store's share
// of an end-to-end ingestion, with one and two concurrent writers (HNSW
// inserts dominate and run in parallel across connections).
func BenchmarkApplyAgrofit(b *testing.B) {
	dims := benchDims()
	cat := loadCatalog(b)
	vecs := make([][2][]float32, len(cat))
	for i := range cat {
		it := &cat[i]
		vecs[i][0] = hashEmbed(it.Name+" "+it.Description, dims)
		var files []string
		for _, f := range it.Files {
			files = append(files, f.Text)
		}
		vecs[i][1] = hashEmbed(strings.Join(files, " "), dims)
	}
	pool := newPool(b)
	ctx := context.Background()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				db := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: uniqueSchema(b, pool, "hrbench_apply")})
				if err := db.Migrate(ctx); err != nil {
					b.Fatal(err)
				}
				s, _ := db.Tenant(benchTenant)
				b.StartTimer()
				start := time.Now()
				var wg sync.WaitGroup
				errs := make([]error, workers)
				for w := range workers {
					wg.Go(func() {
						// Worker w applies every workers-th batch of 100 items.
						for lo := w * 100; lo < len(cat); lo += workers * 100 {
							var batch storage.Batch
							for i := lo; i < min(lo+100, len(cat)); i++ {
								it := cat[i]
								batch.Items = append(batch.Items, it)
								batch.Chunks = append(batch.Chunks, storage.OwnerChunks{
									Owner: storage.OwnerRef{Kind: storage.KindItem, ID: it.ID},
									Chunks: []storage.Chunk{
										{Source: storage.SourceItem, Content: it.Name + "\n" + it.Description, Embedding: vecs[i][0]},
										{Source: storage.SourceFile, Content: "files", Embedding: vecs[i][1]},
									},
								})
							}
							if err := s.Apply(ctx, batch); err != nil {
								errs[w] = err
								return
							}
						}
					})
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(time.Since(start).Seconds(), "s/4220items")
			}
		})
	}
}
