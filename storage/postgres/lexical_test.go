package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

type lexHit struct {
	ID string
	M  int
}

func lexHits(t *testing.T, s storage.Store, q storage.LexicalQuery) []lexHit {
	t.Helper()
	res, err := s.Items().Search(testCtx(t), q)
	if err != nil {
		t.Fatalf("SearchItems(%q): %v", q.Terms, err)
	}
	out := make([]lexHit, len(res))
	for i, r := range res {
		out[i] = lexHit{r.Record.ID, r.TermsMatched}
	}
	return out
}

// lexCorpus draws random catalog items and queries from a small
// vocabulary: words inside words, words across separators, separators
// alone, multi-byte letters, LIKE metacharacters.
type lexCorpus struct {
	rng *rand.Rand
	// long: items also hold rare words (lexRare, each in a few items) and
	// queries are long questions (16–24 terms) mixing rare words and the
	// corpus's common ones.
	long bool
}

// lexRare returns the k-th rare word of a long corpus.
func lexRare(k int) string { return fmt.Sprintf("raro%d", k) }

var (
	lexWords = []string{"soja", "sojas", "milho", "ferrugem", "2,4-d", "100%", "0,5", "l/ha", "cana-de-acucar", "ação",
		"Açúcar", "fungicida", "de", "a", "%", "_", "\\", "x", "percevejo", "lagarta-do-cartucho", "uva", "abc_def",
		"(l/ha).", "ml/ha", "(sc)"}
	lexSeps  = []string{" ", "\n", "-", ", ", "/", "%", "_", "."}
	lexTerms = []string{"soja", "oja", "sojas", "milho de", "2,4-d", "4-d", ",", "%", "_", "\\", "100%", "l/ha", "cana-de",
		"de acucar", "çã", "ação", "acucar", "ca", "xyz", "a", "fungicida\nsoja", "errugem", "de", "lagarta-do", "c_d",
		"-", "uva soja", "0,5 l", "x", "(l/ha)", "l/ha.", "/ha", "a-d", "sc)", "ção-12", longToken[200:260], longToken[20:200]}
	// longToken is longer than a token is kept whole (256 characters):
	// the tokens hold its pieces, which terms of up to 128 characters
	// are looked up in; a longer term is confirmed on the text.
	longToken = func() string {
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, "cao-%d/", i)
		}
		return b.String()
	}()
	lexCategories = []string{"Fungicida", "Herbicida", "Inseticida"}
)

func (c *lexCorpus) text() string {
	var b strings.Builder
	for range c.rng.IntN(10) {
		if c.rng.IntN(30) == 0 {
			b.WriteString(longToken)
		} else {
			b.WriteString(lexWords[c.rng.IntN(len(lexWords))])
		}
		b.WriteString(lexSeps[c.rng.IntN(len(lexSeps))])
	}
	return b.String()
}

func (c *lexCorpus) item(id string, base time.Time) storage.CatalogItem {
	it := storage.CatalogItem{
		ID:          id,
		Name:        c.text(),
		Description: c.text(),
		Category:    lexCategories[c.rng.IntN(len(lexCategories))],
		// Few distinct times, so that ties on CreatedAt are broken by ID.
		CreatedAt: base.Add(time.Duration(c.rng.IntN(20)) * time.Hour),
	}
	if c.rng.IntN(3) == 0 {
		it.Tags = []string{lexWords[c.rng.IntN(len(lexWords))]}
	}
	if c.long {
		for range c.rng.IntN(4) {
			it.Description += " " + lexRare(c.rng.IntN(40))
		}
	}
	if c.rng.IntN(4) == 0 {
		it.Files = []storage.CatalogFile{{ItemID: id, Name: "bula.txt", Text: c.text()}}
	}
	if c.rng.IntN(8) == 0 {
		it.Status = storage.StatusInactive
	}
	return it
}

func (c *lexCorpus) query() storage.LexicalQuery {
	q := storage.LexicalQuery{Limit: 1 + c.rng.IntN(30)}
	if c.long {
		// 16–24 terms: a few rare words, the rest common words and
		// substrings (repeats are one term).
		n := 16 + c.rng.IntN(9)
		for range 2 + c.rng.IntN(5) {
			q.Terms = append(q.Terms, lexRare(c.rng.IntN(44)))
		}
		for len(q.Terms) < n {
			q.Terms = append(q.Terms, lexTerms[c.rng.IntN(len(lexTerms))])
		}
		c.rng.Shuffle(len(q.Terms), func(i, j int) { q.Terms[i], q.Terms[j] = q.Terms[j], q.Terms[i] })
	}
	for range (1 + c.rng.IntN(6)) * btoi(!c.long) {
		q.Terms = append(q.Terms, lexTerms[c.rng.IntN(len(lexTerms))])
	}
	if c.rng.IntN(4) == 0 {
		q.Filters = []storage.Filter{{Field: storage.FieldCategory, Value: lexCategories[c.rng.IntN(len(lexCategories))]}}
	}
	return q
}

// lexPair is a PostgreSQL tenant and a memory store that receive the same
// writes, with a second PostgreSQL tenant (same IDs, other texts) whose
// rows must never appear in the first one's results.
type lexPair struct {
	t         *testing.T
	pg, other *postgres.Store
	mem       *memory.Store
	c         *lexCorpus
	base      time.Time
}

// newLexPair opens tenant and tenant+"-other" in db, a memory store, and a
// corpus seeded with (seed1, seed2).
func newLexPair(t *testing.T, db *postgres.DB, tenant string, seed1, seed2 uint64) *lexPair {
	t.Helper()
	pg, err := db.Tenant(tenant)
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.Tenant(tenant + "-other")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.New(memory.Options{Dimensions: 4}).Tenant(tenant)
	if err != nil {
		t.Fatal(err)
	}
	return &lexPair{t: t, pg: pg, other: other, mem: mem, c: &lexCorpus{rng: rand.New(rand.NewPCG(seed1, seed2))},
		base: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// write applies b to the memory store and then to PostgreSQL.
func (p *lexPair) write(b storage.Batch) {
	p.t.Helper()
	ctx := testCtx(p.t)
	if err := p.mem.Apply(ctx, b); err != nil {
		p.t.Fatal(err)
	}
	if err := p.pg.Apply(ctx, b); err != nil {
		p.t.Fatal(err)
	}
}

// same runs n random queries on both stores and fails at the first whose
// results differ.
func (p *lexPair) same(when string, n int) {
	p.t.Helper()
	for range n {
		q := p.c.query()
		want := lexHits(p.t, p.mem, q)
		if got := lexHits(p.t, p.pg, q); !cmp.Equal(want, got) {
			p.t.Fatalf("%s, query %q limit %d filters %v (-memory +postgres):\n%s", when, q.Terms, q.Limit, q.Filters, cmp.Diff(want, got))
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLexicalMatchesMemory checks PostgreSQL's lexical search (the word
// index of migration 0003) against the memory store's on random corpora,
// through inserts, text changes, status changes, CreatedAt changes and
// deletes (Apply and DeleteItem): the same candidates, TermsMatched and
// order for every query, with and without filters. It then copies the
// owner rows into a schema at migration 0002 and checks that Migrate's
// backfill indexes them to the same results. It runs with the store's
// limits, then with one and two levels before the bounded ranking of the
// rest (lexPlan.bounded) and postings counts capped at 2 and 3, so that
// the bounded ranking, its second walk, the full count and the ordering of
// capped terms by the newest owners all run on the small corpus; and with
// every probe of a walked owner made on its text (textProbeWords 0). The
// long cases ask long questions (16–24 terms, rare words among common
// ones and substrings) with the levels cut short, so that the
// score-bounded top-k (lexPlan.maxScore) ranks many of them: with the
// terms in 75% or 90% of the sampled owners common (long-maxscore, and
// long-text-probes with its probes on the text), and with the store's
// density rule (long); the first two fail unless maxScore's ranking was
// kept for some queries.
func TestLexicalMatchesMemory(t *testing.T) {
	for _, tc := range []struct {
		name        string
		levels, cap int
		textProbes  bool
		long        bool
		density     float64 // commonDensity, when > 0
	}{
		{"defaults", 0, 0, false, false, 0}, {"one-level", 1, 2, false, false, 0}, {"two-levels", 2, 3, false, false, 0},
		{"text-probes", 0, 0, true, false, 0}, {"long", 1, 3, false, true, 0},
		{"long-maxscore", 1, 3, false, true, 0.75}, {"long-text-probes", 2, 2, true, true, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.levels > 0 {
				postgres.SetLexLimits(t, tc.levels, tc.cap)
			}
			if tc.textProbes {
				// Every probe of an item or FAQ term on the owner's text.
				postgres.SetTextProbeWords(t, 0)
			}
			if tc.density > 0 {
				postgres.SetCommonDensity(t, tc.density)
			}
			kept, batched := postgres.MaxScoreKept(), postgres.LevelsBatched()
			lexicalMatchesMemory(t, tc.long)
			if n := postgres.MaxScoreKept() - kept; tc.density > 0 && n == 0 {
				t.Errorf("the score-bounded ranking was never kept")
			} else {
				t.Logf("score-bounded rankings kept: %d", n)
			}
			// Levels sure to fall short (their walked terms have fewer
			// postings than the limit) are sent with the next one: the
			// comparison above covers them only if that happens.
			if n := postgres.LevelsBatched() - batched; tc.name == "defaults" && n == 0 {
				t.Errorf("no level was sent in one statement with the level before it")
			} else {
				t.Logf("levels in one statement with the level before: %d", n)
			}
		})
	}
}

func lexicalMatchesMemory(t *testing.T, long bool) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	lp := newLexPair(t, db, "eq", 14, 1)
	lp.c.long = long
	pg, other, mem, c, base := lp.pg, lp.other, lp.mem, lp.c, lp.base
	check := func(step int) { t.Helper(); lp.same(fmt.Sprintf("step %d", step), 40) }
	write := lp.write
	var ids []string
	for i := range 60 {
		ids = append(ids, fmt.Sprintf("it-%02d", i))
	}
	for step := range 25 {
		var b storage.Batch
		for range 1 + c.rng.IntN(12) {
			id := ids[c.rng.IntN(len(ids))]
			switch c.rng.IntN(6) {
			case 0:
				b.Deletes = append(b.Deletes, storage.OwnerRef{Kind: storage.KindItem, ID: id})
			default:
				b.Items = append(b.Items, c.item(id, base))
			}
		}
		write(b)
		if step%5 == 4 {
			// DeleteItem, outside Apply.
			id := ids[c.rng.IntN(len(ids))]
			errMem, errPG := mem.Items().Delete(ctx, id), pg.Items().Delete(ctx, id)
			if (errMem == nil) != (errPG == nil) {
				t.Fatalf("DeleteItem(%s): memory %v, postgres %v", id, errMem, errPG)
			}
		}
		var ob storage.Batch
		for range 5 {
			ob.Items = append(ob.Items, c.item(ids[c.rng.IntN(len(ids))], base))
		}
		if err := other.Apply(ctx, ob); err != nil {
			t.Fatal(err)
		}
		check(step)
	}

	// Backfill: the same owner rows in a schema at migration 0002, then
	// Migrate.
	schema := db.Options().Schema
	old := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: uniqueSchema(t, pool, "hrt_backfill")})
	if err := postgres.MigrateTo(ctx, old, 2); err != nil {
		t.Fatal(err)
	}
	oldSchema := pgx.Identifier{old.Options().Schema}.Sanitize()
	for _, table := range []string{"items", "item_files"} {
		if _, err := pool.Exec(ctx, "INSERT INTO "+oldSchema+"."+table+" SELECT * FROM "+pgx.Identifier{schema}.Sanitize()+"."+table); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	migrated, err := old.Tenant("eq")
	if err != nil {
		t.Fatal(err)
	}
	lp.pg = migrated
	check(-1)
}

// TestWordIndexMaintained follows one item through every kind of write and
// checks both the search results and the postings rows: a posting left
// behind by an update or a delete, or missing after one, fails it.
func TestWordIndexMaintained(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	s, err := db.Tenant("m")
	if err != nil {
		t.Fatal(err)
	}
	postings := func() []string {
		t.Helper()
		q := pgx.Identifier{db.Options().Schema}.Sanitize()
		rows, err := pool.Query(ctx, `SELECT p.owner_id || ':' || d.word FROM `+q+`.item_postings p
			JOIN (SELECT tenant_id, id, word FROM `+q+`.item_words UNION ALL SELECT tenant_id, id, word FROM `+q+`.item_tokens) d
			ON d.tenant_id = p.tenant_id AND d.id = p.word_id
			WHERE p.tenant_id = 'm' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	search := func(term string) []lexHit {
		t.Helper()
		return lexHits(t, s, storage.LexicalQuery{Terms: []string{term}})
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		name     string
		write    func() error
		postings []string
		terms    map[string][]lexHit
	}{
		{"insert", func() error {
			return s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Alfa bravo", CreatedAt: t0}, {ID: "b", Name: "alfa", CreatedAt: t0.Add(time.Hour)}}})
		}, []string{"a:alfa", "a:bravo", "b:alfa"}, map[string][]lexHit{"alf": {{"b", 1}, {"a", 1}}, "bravo": {{"a", 1}}}},
		{"text changed", func() error {
			return s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Charlie (l/ha)", CreatedAt: t0}}})
		}, []string{"a:charlie", "a:ha", "a:l", "a:l/ha", "b:alfa"}, map[string][]lexHit{"alf": {{"b", 1}}, "bravo": {}, "charl": {{"a", 1}},
			"l/ha": {{"a", 1}}, "(l/ha)": {{"a", 1}}, "l/ha.": {}}},
		{"created_at changed", func() error {
			return s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Charlie alfa", CreatedAt: t0.Add(2 * time.Hour)}}})
		}, []string{"a:alfa", "a:charlie", "b:alfa"}, map[string][]lexHit{"alfa": {{"a", 1}, {"b", 1}}, "l/ha": {}}},
		{"inactive", func() error {
			return s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Charlie alfa", CreatedAt: t0.Add(2 * time.Hour), Status: storage.StatusInactive}}})
		}, []string{"b:alfa"}, map[string][]lexHit{"alfa": {{"b", 1}}, "charlie": {}}},
		{"active again", func() error {
			return s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Charlie alfa", CreatedAt: t0.Add(2 * time.Hour)}}})
		}, []string{"a:alfa", "a:charlie", "b:alfa"}, map[string][]lexHit{"alfa": {{"a", 1}, {"b", 1}}, "charlie": {{"a", 1}}}},
		{"same text rewritten", func() error {
			return s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Charlie alfa", CreatedAt: t0.Add(2 * time.Hour)}}})
		}, []string{"a:alfa", "a:charlie", "b:alfa"}, map[string][]lexHit{"alfa": {{"a", 1}, {"b", 1}}}},
		{"DeleteItem", func() error { return s.Items().Delete(ctx, "b") },
			[]string{"a:alfa", "a:charlie"}, map[string][]lexHit{"alfa": {{"a", 1}}}},
		{"Apply delete", func() error {
			return s.Apply(ctx, storage.Batch{Deletes: []storage.OwnerRef{{Kind: storage.KindItem, ID: "a"}}})
		}, nil, map[string][]lexHit{"alfa": {}, "charlie": {}}},
	}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if d := cmp.Diff(st.postings, postings(), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: postings (-want +got):\n%s", st.name, d)
		}
		for term, want := range st.terms {
			if want == nil {
				want = []lexHit{}
			}
			if d := cmp.Diff(want, search(term)); d != "" {
				t.Errorf("%s: search %q (-want +got):\n%s", st.name, term, d)
			}
		}
	}
}

// TestTokensMatchSQL: the tokens a write adds to the dictionary before its
// transaction (eachToken, in Go) are the ones migration 0006's
// search_tokens finds in SQL, on texts with separators inside, around and
// alone, multi-byte letters, newlines, repeated spaces and tokens longer
// than 256 characters (kept as pieces). A token Go misses is still
// indexed by the trigger, but inside the write's transaction, where
// concurrent writers can deadlock on it (TestConcurrentNewWords).
func TestTokensMatchSQL(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	fn := pgx.Identifier{db.Options().Schema}.Sanitize() + ".search_tokens"
	c := &lexCorpus{rng: rand.New(rand.NewPCG(5, 6))}
	texts := []string{"", " ", "(960 g/l).", "soja, milho.", "--a--", "a-b\nc/d  e.f", "ção/ão", "l/ha (l/ha) ml/ha",
		strings.Repeat("x", 300) + "/y", longToken + " " + longToken[:257] + " " + longToken[:258]}
	for range 200 {
		texts = append(texts, strings.ToLower(c.text()))
	}
	for _, text := range texts {
		rows, err := pool.Query(ctx, "SELECT w FROM "+fn+"($1) AS w ORDER BY 1", text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if got := postgres.Tokens(text); !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
			t.Fatalf("tokens of %q (-SQL +Go):\n%s", text, cmp.Diff(want, got, cmpopts.EquateEmpty()))
		}
	}
}

// TestConcurrentNewWords writes, from several goroutines at once, batches
// whose items bring the same new words in different orders: every Apply
// must succeed. The owner tables' triggers insert a record's words inside
// the batch's transaction; without the sorted, separately committed
// insert of each batch's words before it (Store.Apply), two such batches
// wait for each other's words and PostgreSQL aborts one with a deadlock.
func TestConcurrentNewWords(t *testing.T) {
	db, _ := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	const writers, batches, perBatch = 4, 8, 20
	errs := make(chan error, writers*batches)
	done := make(chan struct{})
	for w := range writers {
		go func() {
			defer func() { done <- struct{}{} }()
			s, err := db.Tenant("words")
			if err != nil {
				errs <- err
				return
			}
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for b := range batches {
				items := make([]storage.CatalogItem, perBatch)
				for i := range items {
					var ws []string
					for range 6 {
						ws = append(ws, fmt.Sprintf("palavra%03d", rng.IntN(300)))
					}
					items[i] = storage.CatalogItem{ID: fmt.Sprintf("w%d-b%d-i%02d", w, b, i), Name: strings.Join(ws, " ")}
				}
				if err := s.Apply(ctx, storage.Batch{Items: items}); err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, b, err)
				}
			}
		}()
	}
	for range writers {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := db.Tenant("words")
	if err != nil {
		t.Fatal(err)
	}
	// Every item is found by its words.
	got, err := s.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"palavra"}, Limit: storage.MaxResultLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*batches*perBatch {
		t.Errorf("search found %d items, want %d", len(got), writers*batches*perBatch)
	}
}

// TestRestrictionsMatchMemory checks PostgreSQL's restricted searches
// (storage.LexicalQuery and VectorQuery's OwnerIDs and ChunkFilters)
// against the memory store's on a random corpus whose chunks carry random
// metadata: the same lexical candidates and vector matches for every
// query, both when restrictions count as few (direct ranking, exact
// scan) and when every restriction counts as wide (the lexical levels
// probing chunks; the vector leg's HNSW path and its exact fallback, whose
// results on this small corpus must still equal the exact ones).
func TestRestrictionsMatchMemory(t *testing.T) {
	db, _ := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	lp := newLexPair(t, db, "rs", 24, 7)
	rng := lp.c.rng
	// The long values (over 64 characters) are looked up by their md5 in
	// the narrow metadata tables (migration 0007); the two differ in
	// their last letter, and "Ção" normalizes to "cao".
	long := strings.Repeat("Lote de sementes certificadas ", 3)
	lotes := []string{"a", "B", "c", "Ção", "cao", long + "X", long + "y"}
	comp := []float32{0, 0.25, -0.25, 0.5, -0.5, 1, -1}
	var ids []string
	var b storage.Batch
	for i := range 80 {
		id := fmt.Sprintf("it-%02d", i)
		ids = append(ids, id)
		b.Items = append(b.Items, lp.c.item(id, lp.base))
		ref := storage.OwnerRef{Kind: storage.KindItem, ID: id}
		var chunks []storage.Chunk
		for seq := range 1 + rng.IntN(3) {
			ch := storage.Chunk{Source: storage.SourceItem, Seq: seq, Content: "c",
				Embedding: []float32{comp[rng.IntN(len(comp))], comp[rng.IntN(len(comp))], comp[rng.IntN(len(comp))], float32(i) / 128}}
			if rng.IntN(5) > 0 {
				ch.Metadata = map[string]string{"lote": lotes[rng.IntN(len(lotes))]}
				if rng.IntN(2) == 0 {
					ch.Metadata["fase"] = fmt.Sprint(rng.IntN(3))
				}
			}
			chunks = append(chunks, ch)
		}
		b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: ref, Chunks: chunks})
	}
	lp.write(b)
	restrict := func() ([]string, []storage.ChunkFilter) {
		var owners []string
		if rng.IntN(3) == 0 {
			for range 1 + rng.IntN(30) {
				owners = append(owners, ids[rng.IntN(len(ids))])
			}
		}
		var filters []storage.ChunkFilter
		for range rng.IntN(3) {
			filters = append(filters, storage.ChunkFilter{Key: "lote", Value: lotes[rng.IntN(len(lotes))]})
		}
		if rng.IntN(3) == 0 {
			filters = append(filters, storage.ChunkFilter{Key: "fase", Value: fmt.Sprint(rng.IntN(3))})
		}
		return owners, filters
	}
	fresh := 0
	for _, mode := range []string{"few", "wide", "cached"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "wide" {
				postgres.SetExactScanChunks(t, 0)
			}
			for range 60 {
				q := lp.c.query()
				if mode == "cached" {
					// The terms' lookups cached by an unrestricted search
					// first: the restricted ranking then counts rare
					// terms from their postings; after a write in one
					// case of four, the cached lookups are stale.
					lexHits(t, lp.pg, storage.LexicalQuery{Terms: q.Terms})
					if rng.IntN(4) == 0 {
						fresh++
						lp.write(storage.Batch{Items: []storage.CatalogItem{lp.c.item(fmt.Sprintf("new-%02d", fresh), lp.base)}})
					}
				}
				q.OwnerIDs, q.ChunkFilters = restrict()
				want := lexHits(t, lp.mem, q)
				if got := lexHits(t, lp.pg, q); !cmp.Equal(want, got) {
					t.Fatalf("query %q limit %d owners %v chunk filters %v (-memory +postgres):\n%s", q.Terms, q.Limit, q.OwnerIDs, q.ChunkFilters, cmp.Diff(want, got))
				}
				vq := storage.VectorQuery{Kind: storage.KindItem, Limit: 1 + rng.IntN(20), MaxDistance: storage.NoThreshold,
					Vector: []float32{comp[rng.IntN(len(comp))], comp[rng.IntN(len(comp))], comp[rng.IntN(len(comp))], 0.5}}
				vq.OwnerIDs, vq.ChunkFilters = restrict()
				vm, err := lp.mem.SearchChunks(ctx, vq)
				if err != nil {
					t.Fatal(err)
				}
				vp, err := lp.pg.SearchChunks(ctx, vq)
				if err != nil {
					t.Fatal(err)
				}
				key := func(ms []storage.ChunkMatch) []string {
					out := make([]string, len(ms))
					for i, m := range ms {
						out[i] = fmt.Sprintf("%s/%d %.4f", m.Chunk.Owner.ID, m.Chunk.Seq, m.Distance)
					}
					return out
				}
				if !cmp.Equal(key(vm), key(vp)) {
					t.Fatalf("vector query %v limit %d owners %v chunk filters %v (-memory +postgres):\n%s", vq.Vector, vq.Limit, vq.OwnerIDs, vq.ChunkFilters, cmp.Diff(key(vm), key(vp)))
				}
			}
		})
	}
}

// TestLexicalRareWalk builds the case where the bounded ranking's first
// walk, every rare term (lexPlan.rareWalk: xdelta, xbeta, xgamma, xalpha,
// wider than the next level's two), does not hold the ranking: after the
// one level (every term: A) it finds count 2, which owners holding only
// the two common terms can also reach; the newest of those (E7, E6) rank
// before the rare walk's D1 and D2, so the second walk must take a common
// term too. Taking the rare walk's result as the ranking fails here.
func TestLexicalRareWalk(t *testing.T) {
	postgres.SetLexLimits(t, 1, 8)
	db, _ := openDB(t, postgres.Options{Dimensions: 4})
	lp := newLexPair(t, db, "rare", 1, 2)
	texts := map[string]string{
		"A":  "xdelta xbeta xgamma xalpha zcommon ycommon",
		"D1": "xgamma ycommon", "D2": "xgamma ycommon", "D3": "xbeta", "D4": "xbeta", "D5": "xgamma",
		"B1": "xalpha", "B2": "xalpha", "B3": "xalpha", "B4": "xalpha",
	}
	order := []string{"D5", "D1", "D2", "D3", "D4", "B1", "B2", "B3", "B4"} // oldest first
	for i := range 8 {
		id := fmt.Sprintf("E%d", i)
		texts[id] = "zcommon ycommon"
		order = append(order, id)
	}
	order = append(order, "A")
	var b storage.Batch
	for k, id := range order {
		b.Items = append(b.Items, storage.CatalogItem{ID: id, Name: texts[id], CreatedAt: lp.base.Add(time.Duration(k) * time.Hour)})
	}
	lp.write(b)
	q := storage.LexicalQuery{Terms: []string{"xdelta", "xbeta", "xgamma", "xalpha", "zcommon", "ycommon"}, Limit: 3}
	want := []lexHit{{"A", 6}, {"E7", 2}, {"E6", 2}}
	if got := lexHits(t, lp.mem, q); !cmp.Equal(want, got) {
		t.Fatalf("memory store: %v, want %v", got, want)
	}
	if got := lexHits(t, lp.pg, q); !cmp.Equal(want, got) {
		t.Fatalf("postgres: %v, want %v", got, want)
	}
}
