package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// ---- stores ---------------------------------------------------------------

// recordingStore counts the writes reaching a store.
type recordingStore struct {
	storage.Backend
	applies atomic.Int64
}

func (s *recordingStore) Apply(ctx context.Context, b storage.Batch) error {
	s.applies.Add(1)
	return s.Backend.Apply(ctx, b)
}

// eachStore runs fn once against the memory store and once against
// Postgres (skipped when HYBRIDRAG_TEST_DATABASE_URL is unset). open returns
// a store on a tenant no other test uses, wrapped to count writes.
func eachStore(t *testing.T, fn func(t *testing.T, open func(t *testing.T) *recordingStore)) {
	t.Helper()
	t.Run("memory", func(t *testing.T) {
		db := memory.New(memory.Options{Dimensions: ragtest.Dims})
		fn(t, func(t *testing.T) *recordingStore {
			s, err := db.Tenant(ragtest.TenantName(t))
			if err != nil {
				t.Fatal(err)
			}
			return &recordingStore{Backend: s}
		})
	})
	t.Run("postgres", func(t *testing.T) {
		db := ragtest.PostgresDB(t)
		fn(t, func(t *testing.T) *recordingStore {
			s, err := db.Tenant(ragtest.TenantName(t))
			if err != nil {
				t.Fatal(err)
			}
			return &recordingStore{Backend: s}
		})
	})
}

// ---- embedders ------------------------------------------------------------

// scriptedEmbedder embeds with the hash embedder and records every call; fail,
// when set, may replace a call's result (calls are numbered from 1).
type scriptedEmbedder struct {
	inner *vector.HashEmbedder
	fail  func(call int, texts []string) ([][]float32, error)

	mu    sync.Mutex
	calls [][]string

	inFlight, maxInFlight atomic.Int64
}

func newScripted(t testing.TB, fail func(call int, texts []string) ([][]float32, error)) *scriptedEmbedder {
	return &scriptedEmbedder{inner: ragtest.HashEmbedder(t), fail: fail}
}

func (e *scriptedEmbedder) Dimensions() int { return e.inner.Dimensions() }

func (e *scriptedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	n := e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	for {
		m := e.maxInFlight.Load()
		if n <= m || e.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	e.mu.Lock()
	e.calls = append(e.calls, slices.Clone(texts))
	call := len(e.calls)
	e.mu.Unlock()
	if e.fail != nil {
		if vecs, err := e.fail(call, texts); vecs != nil || err != nil {
			return vecs, err
		}
	}
	return e.inner.Embed(ctx, texts)
}

// Calls returns the texts of every call so far.
func (e *scriptedEmbedder) Calls() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.calls)
}

func (e *scriptedEmbedder) texts() int {
	n := 0
	for _, c := range e.Calls() {
		n += len(c)
	}
	return n
}

var errEmbedderBroken = errors.New("embedder broken")

// ---- records --------------------------------------------------------------

// longText returns n sentences about a subject, long enough to give the
// recursive splitter several chunks.
func longText(subject string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Parágrafo %d sobre %s: aplicar conforme a bula, respeitando o intervalo de segurança e a dose indicada para a cultura.\n\n", i, subject)
	}
	return b.String()
}

func chunkRefs(t *testing.T, s storage.Backend, kind storage.OwnerKind, ids ...string) []storage.ChunkRef {
	t.Helper()
	if ids == nil {
		ids = []string{}
	}
	refs, err := s.ChunkRefs(context.Background(), kind, ids)
	if err != nil {
		t.Fatalf("ChunkRefs: %v", err)
	}
	return refs
}

func storedChunks(t *testing.T, s storage.Backend, owner storage.OwnerRef) []storage.Chunk {
	t.Helper()
	cs, err := s.Chunks(context.Background(), owner)
	if err != nil {
		t.Fatalf("Chunks(%v): %v", owner, err)
	}
	return cs
}

func itemOwner(id string) storage.OwnerRef { return storage.OwnerRef{Kind: storage.KindItem, ID: id} }

// ---- tests ----------------------------------------------------------------

// TestIndexerIdempotent re-indexes unchanged testdata: no embedding call,
// no write, every owner unchanged.
func TestIndexerIdempotent(t *testing.T) {
	src := ragtest.TestdataSources(t)
	eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
		ctx := context.Background()
		store := open(t)
		emb := newScripted(t, nil)
		ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})

		first, err := ix.Reindex(ctx, src)
		if err != nil {
			t.Fatalf("first Reindex: %v", err)
		}
		owners := len(src.Items) + len(src.FAQs) + len(src.Documents)
		if first.Written != owners || first.Unchanged != 0 || first.Failed != 0 {
			t.Fatalf("first run: %+v, want %d owners written", first, owners)
		}
		if first.Embedded == 0 || first.Embedded+first.Skipped != first.Chunks {
			t.Fatalf("first run: embedded %d + skipped %d != chunks %d", first.Embedded, first.Skipped, first.Chunks)
		}
		if got := emb.texts(); got != first.Embedded {
			t.Errorf("embedder saw %d texts, Stats.Embedded = %d", got, first.Embedded)
		}
		c := ragtest.StoreCounts(t, store)
		if c.Chunks != first.Chunks || c.Embedded != c.Chunks {
			t.Errorf("Counts = %+v, want %d chunks, all embedded", c, first.Chunks)
		}
		if c.Items != len(src.Items) || c.FAQs != len(src.FAQs) || c.Documents != len(src.Documents) {
			t.Errorf("Counts = %+v, want %d items, %d faqs, %d documents", c, len(src.Items), len(src.FAQs), len(src.Documents))
		}

		calls, applies := len(emb.Calls()), store.applies.Load()
		second, err := ix.Reindex(ctx, src)
		if err != nil {
			t.Fatalf("second Reindex: %v", err)
		}
		if second.Embedded != 0 || second.Written != 0 || second.Failed != 0 {
			t.Errorf("second run: %+v, want nothing embedded or written", second)
		}
		if second.Unchanged != owners || second.Skipped != second.Chunks || second.Chunks != first.Chunks {
			t.Errorf("second run: %+v, want %d unchanged owners and all %d chunks skipped", second, owners, first.Chunks)
		}
		if n := len(emb.Calls()) - calls; n != 0 {
			t.Errorf("second run made %d embedding calls", n)
		}
		if n := store.applies.Load() - applies; n != 0 {
			t.Errorf("second run made %d writes", n)
		}
		if len(second.Duplicates) != 0 {
			t.Errorf("second run reported duplicates: %v", second.Duplicates)
		}
	})
}

// TestIndexerIncremental edits, re-prices and trims items and checks that
// only what changed is embedded and written.
func TestIndexerIncremental(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
		ctx := context.Background()
		store := open(t)
		emb := newScripted(t, nil)
		ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
		items := ragtest.SampleItems(3)
		items[0].Files = []storage.CatalogFile{
			{Name: "bula.txt", Text: longText("a bula", 25)},
			{Name: "ficha.txt", Text: longText("a ficha de segurança", 12)},
		}
		if _, err := ix.IndexItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		before := storedChunks(t, store, itemOwner("item-00"))
		var fileChunks int
		for _, c := range before {
			if c.Source == storage.SourceFile {
				fileChunks++
			}
		}
		if fileChunks < 4 {
			t.Fatalf("item-00 has %d file chunks, the test needs several", fileChunks)
		}

		t.Run("description edited", func(t *testing.T) {
			items[0].Description = "Fungicida sistêmico para videira, agora com nova formulação."
			calls, applies := len(emb.Calls()), store.applies.Load()
			st, err := ix.IndexItems(ctx, items)
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded != 1 || st.Written != 1 || st.Unchanged != 2 {
				t.Errorf("stats %+v, want 1 embedded, 1 written, 2 unchanged", st)
			}
			if got := emb.Calls()[calls:]; len(got) != 1 || len(got[0]) != 1 || !strings.Contains(got[0][0], "nova formulação") {
				t.Errorf("embedding calls %q, want one call with the new item text", got)
			}
			if n := store.applies.Load() - applies; n != 1 {
				t.Errorf("%d writes, want 1", n)
			}
			after := storedChunks(t, store, itemOwner("item-00"))
			if len(after) != len(before) {
				t.Fatalf("%d chunks after, %d before", len(after), len(before))
			}
			for i := range after {
				same := cmp.Equal(after[i].Embedding, before[i].Embedding)
				if want := after[i].Source == storage.SourceFile; same != want {
					t.Errorf("chunk %s/%d: embedding kept = %v, want %v", after[i].Source, after[i].Seq, same, want)
				}
			}
		})

		t.Run("price changed", func(t *testing.T) {
			items[1].Price = ragtest.Ptr(99.9)
			calls, applies := len(emb.Calls()), store.applies.Load()
			st, err := ix.IndexItems(ctx, items)
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded != 0 || st.Written != 1 || st.Unchanged != 2 {
				t.Errorf("stats %+v, want 0 embedded, 1 written, 2 unchanged", st)
			}
			if n := len(emb.Calls()) - calls; n != 0 {
				t.Errorf("%d embedding calls, want 0", n)
			}
			if n := store.applies.Load() - applies; n != 1 {
				t.Errorf("%d writes, want 1", n)
			}
			got, err := store.Items().Get(ctx, "item-01")
			if err != nil || got.Price == nil || *got.Price != 99.9 {
				t.Errorf("stored item-01 price = %v (%v), want 99.9", got.Price, err)
			}
		})

		t.Run("file renamed", func(t *testing.T) {
			items[0].Files[1].Name = "ficha-v2.txt"
			st, err := ix.IndexItems(ctx, items)
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded != 0 || st.Written != 1 {
				t.Errorf("stats %+v, want 0 embedded, 1 written", st)
			}
			var renamed int
			for _, c := range storedChunks(t, store, itemOwner("item-00")) {
				if c.File == "ficha-v2.txt" {
					renamed++
				}
				if c.File == "ficha.txt" {
					t.Errorf("chunk %s/%d still names the old file", c.Source, c.Seq)
				}
			}
			if renamed == 0 {
				t.Error("no chunk names the renamed file")
			}
		})

		t.Run("file removed", func(t *testing.T) {
			items[0].Files = items[0].Files[:1]
			calls := len(emb.Calls())
			st, err := ix.IndexItems(ctx, items)
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded != 0 || st.Written != 1 {
				t.Errorf("stats %+v, want 0 embedded, 1 written", st)
			}
			if n := len(emb.Calls()) - calls; n != 0 {
				t.Errorf("%d embedding calls, want 0", n)
			}
			want := ingest.ItemChunks(&items[0], mustRecursive(t))
			refs := chunkRefs(t, store, storage.KindItem, "item-00")
			if len(refs) != len(want) {
				t.Fatalf("%d stored chunks, want %d", len(refs), len(want))
			}
			for _, c := range storedChunks(t, store, itemOwner("item-00")) {
				if f := c.File; f != "" && f != "bula.txt" {
					t.Errorf("chunk %s/%d of removed file %q kept", c.Source, c.Seq, f)
				}
				if c.Embedding == nil {
					t.Errorf("chunk %s/%d lost its embedding", c.Source, c.Seq)
				}
			}
		})

		t.Run("unchanged again", func(t *testing.T) {
			calls, applies := len(emb.Calls()), store.applies.Load()
			st, err := ix.IndexItems(ctx, items)
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded != 0 || st.Written != 0 || st.Unchanged != 3 {
				t.Errorf("stats %+v, want all unchanged", st)
			}
			if len(emb.Calls()) != calls || store.applies.Load() != applies {
				t.Error("an unchanged run embedded or wrote")
			}
		})
	})
}

func mustRecursive(t *testing.T) *chunk.Recursive {
	t.Helper()
	r, err := chunk.NewRecursive(chunk.RecursiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIndexerDelete deletes owners of each kind with their chunks.
func TestIndexerDelete(t *testing.T) {
	src := ragtest.TestdataSources(t)
	eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
		ctx := context.Background()
		store := open(t)
		ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{})
		if _, err := ix.Reindex(ctx, src); err != nil {
			t.Fatal(err)
		}
		before := ragtest.StoreCounts(t, store)
		item, faq, doc := src.Items[0].ID, src.FAQs[0].ID, src.Documents[0].ID
		owned := len(chunkRefs(t, store, storage.KindItem, item)) +
			len(chunkRefs(t, store, storage.KindFAQ, faq)) +
			len(chunkRefs(t, store, storage.KindDocument, doc))
		if owned == 0 {
			t.Fatal("the deleted owners have no chunks")
		}
		err := ix.Delete(ctx,
			storage.OwnerRef{Kind: storage.KindItem, ID: item},
			storage.OwnerRef{Kind: storage.KindFAQ, ID: faq},
			storage.OwnerRef{Kind: storage.KindDocument, ID: doc})
		if err != nil {
			t.Fatalf("Delete: %v", err)
		}
		after := ragtest.StoreCounts(t, store)
		want := before
		want.Items--
		want.FAQs--
		want.Documents--
		want.Chunks -= owned
		want.Embedded -= owned
		if after != want {
			t.Errorf("Counts after delete = %+v, want %+v", after, want)
		}
		for _, k := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
			if refs := chunkRefs(t, store, k, item, faq, doc); len(refs) != 0 {
				t.Errorf("%s chunks left: %v", k, refs)
			}
		}
		if err := ix.Delete(ctx); err != nil {
			t.Errorf("Delete of nothing: %v", err)
		}
	})
}

// TestIndexerFailureAtomicity makes the embedder fail in the middle of the
// second write batch: the first batch stays written, the failing one and
// the rest leave the store exactly as it was, and a re-run resumes.
func TestIndexerFailureAtomicity(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
		ctx := context.Background()
		store := open(t)
		// 9 items, 3 per write batch, 2 texts per embedding request: each
		// batch of changed items makes 2 requests.
		opts := ingest.IndexerOptions{WriteBatch: 3, BatchSize: 2, Concurrency: 1}
		v1 := ragtest.SampleItems(9)
		if _, err := ingest.NewIndexer(store, ragtest.HashEmbedder(t), opts).IndexItems(ctx, v1); err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(v1))
		for i := range v1 {
			ids[i] = v1[i].ID
		}
		refsBefore := chunkRefs(t, store, storage.KindItem, ids...)
		countsBefore := ragtest.StoreCounts(t, store)

		v2 := ragtest.SampleItems(9)
		for i := range v2 {
			v2[i].Description = fmt.Sprintf("Descrição revisada %d: inseticida para soja.", i)
		}
		// Request 3 (first of batch 2) succeeds, request 4 fails.
		broken := newScripted(t, func(call int, _ []string) ([][]float32, error) {
			if call == 4 {
				return nil, errEmbedderBroken
			}
			return nil, nil
		})
		applies := store.applies.Load()
		st, err := ingest.NewIndexer(store, broken, opts).IndexItems(ctx, v2)
		if !errors.Is(err, errEmbedderBroken) {
			t.Fatalf("err = %v, want the embedder's error", err)
		}
		if st.Written != 3 || st.Failed != 6 {
			t.Errorf("stats %+v, want 3 written, 6 failed", st)
		}
		if n := len(broken.Calls()); n != 4 {
			t.Errorf("%d embedding calls, want 4 (no retry of a permanent error)", n)
		}
		if n := store.applies.Load() - applies; n != 1 {
			t.Errorf("%d writes, want 1 (the first batch)", n)
		}
		// Batch 1 holds v2, batches 2 and 3 are exactly as before.
		if c := ragtest.StoreCounts(t, store); c != countsBefore {
			t.Errorf("Counts = %+v, want %+v", c, countsBefore)
		}
		stored, err := store.Items().GetMany(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range stored {
			want := v1[i].Description
			if i < 3 {
				want = v2[i].Description
			}
			if it.Description != want {
				t.Errorf("%s description = %q, want %q", it.ID, it.Description, want)
			}
		}
		refsAfter := chunkRefs(t, store, storage.KindItem, ids[3:]...)
		if diff := cmp.Diff(refsBefore[3:], refsAfter); diff != "" {
			t.Errorf("chunks of the failed batches changed (-before +after):\n%s", diff)
		}

		// A re-run with a working embedder embeds only the 6 items left.
		fixed := newScripted(t, nil)
		st, err = ingest.NewIndexer(store, fixed, opts).IndexItems(ctx, v2)
		if err != nil {
			t.Fatalf("re-run: %v", err)
		}
		if st.Embedded != 6 || st.Written != 6 || st.Unchanged != 3 || st.Failed != 0 {
			t.Errorf("re-run stats %+v, want 6 embedded, 6 written, 3 unchanged", st)
		}
		for _, call := range fixed.Calls() {
			for _, text := range call {
				for i := range 3 {
					if strings.Contains(text, fmt.Sprintf("revisada %d:", i)) {
						t.Errorf("re-run embedded item %d again", i)
					}
				}
			}
		}
	})
}

// failingStore fails the Nth Apply (from 1) without writing anything.
type failingStore struct {
	storage.Backend
	failOn int64
	calls  atomic.Int64
}

var errWriteFailed = errors.New("disk full")

func (s *failingStore) Apply(ctx context.Context, b storage.Batch) error {
	if s.calls.Add(1) == s.failOn {
		return errWriteFailed
	}
	return s.Backend.Apply(ctx, b)
}

// TestIndexerWriteFailure fails one write while others are in flight: the
// error is returned, every owner is either written or counted as failed,
// and a re-run writes exactly the failed ones.
func TestIndexerWriteFailure(t *testing.T) {
	for _, wc := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("WriteConcurrency=%d", wc), func(t *testing.T) {
			ctx := context.Background()
			mem, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
			store := &failingStore{Backend: mem, failOn: 2}
			opts := ingest.IndexerOptions{WriteBatch: 2, WriteConcurrency: wc}
			st, err := ingest.NewIndexer(store, ragtest.HashEmbedder(t), opts).IndexItems(ctx, ragtest.SampleItems(10))
			if !errors.Is(err, errWriteFailed) {
				t.Fatalf("err = %v, want the store's error", err)
			}
			c := ragtest.StoreCounts(t, mem)
			if st.Written+st.Failed != 10 || st.Failed < 2 || st.Written != c.Items || c.Chunks != c.Items {
				t.Errorf("stats %+v, Counts %+v: want written + failed = 10 and the written items stored", st, c)
			}
			if wc == 1 && (st.Written != 2 || st.Failed != 8) {
				t.Errorf("stats %+v, want 2 written and 8 failed with sequential writes", st)
			}
			again, err := ingest.NewIndexer(mem, ragtest.HashEmbedder(t), opts).IndexItems(ctx, ragtest.SampleItems(10))
			if err != nil || again.Written != st.Failed || again.Unchanged != st.Written {
				t.Errorf("re-run: %+v, %v; want %d written, %d unchanged", again, err, st.Failed, st.Written)
			}
		})
	}
}

// transientError is an embedding error marked retryable
// (vector.TransientError).
type transientError struct{ transient bool }

func (e *transientError) Error() string {
	return fmt.Sprintf("embed failed (transient %v)", e.transient)
}
func (e *transientError) Transient() bool { return e.transient }

// TestIndexerRetries checks the Indexer with vector.WithRetry, the one
// retry owner for embedders whose client does not retry: transient errors
// are retried, permanent and plain ones are not, and the Indexer itself
// never retries.
func TestIndexerRetries(t *testing.T) {
	retryable := &transientError{transient: true}
	permanent := &transientError{}
	tests := []struct {
		name      string
		attempts  int // vector.RetryPolicy.Attempts; 0 = no wrapper
		failures  int // calls failing before success; -1 = always
		err       error
		wantCalls int
		wantErr   bool
	}{
		{"retryable twice then success", 4, 2, retryable, 3, false},
		{"retryable always", 3, -1, retryable, 3, true},
		{"permanent not retried", 4, -1, permanent, 1, true},
		{"plain error not retried", 4, -1, errEmbedderBroken, 1, true},
		{"no wrapper, no retry", 0, -1, retryable, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			emb := newScripted(t, func(call int, _ []string) ([][]float32, error) {
				if tc.failures < 0 || call <= tc.failures {
					return nil, fmt.Errorf("wrapped: %w", tc.err)
				}
				return nil, nil
			})
			store, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			var e vector.Embedder = emb
			if tc.attempts > 0 {
				e = vector.WithRetry(emb, vector.RetryPolicy{Attempts: tc.attempts, Base: time.Microsecond})
			}
			st, err := ingest.NewIndexer(store, e, ingest.IndexerOptions{}).IndexItems(context.Background(), ragtest.SampleItems(1))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr && !errors.Is(err, tc.err) {
				t.Errorf("err = %v, does not wrap %v", err, tc.err)
			}
			if n := len(emb.Calls()); n != tc.wantCalls {
				t.Errorf("%d calls, want %d", n, tc.wantCalls)
			}
			wantItems := 1
			if tc.wantErr {
				wantItems = 0
				if st.Failed != 1 {
					t.Errorf("Failed = %d, want 1", st.Failed)
				}
			}
			if c := ragtest.StoreCounts(t, store); c.Items != wantItems {
				t.Errorf("%d items stored, want %d", c.Items, wantItems)
			}
		})
	}
}

// TestIndexerRetryBackoffCancelled stops waiting for a retry when the
// context ends.
func TestIndexerRetryBackoffCancelled(t *testing.T) {
	emb := newScripted(t, func(int, []string) ([][]float32, error) {
		return nil, &transientError{transient: true}
	})
	store, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	ix := ingest.NewIndexer(store, vector.WithRetry(emb, vector.RetryPolicy{Base: time.Hour, Max: time.Hour}), ingest.IndexerOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := ix.IndexItems(ctx, ragtest.SampleItems(1))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("IndexItems kept waiting for a retry after its context ended")
	}
}

// TestIndexerBatching checks the request limits: no blank text is sent, no
// request exceeds BatchSize texts or BatchTokens tokens, at most
// Concurrency requests run at once, and equal texts are embedded once.
func TestIndexerBatching(t *testing.T) {
	items := ragtest.SampleItems(12)
	for i := range items {
		items[i].Files = []storage.CatalogFile{
			{Name: "vazio.txt", Text: " \n\t "},
			{Name: "texto.txt", Text: longText(fmt.Sprintf("o produto %d", i), 2+i%5)},
			{Name: "comum.txt", Text: "Texto comum a todos os produtos do catálogo."},
		}
	}
	items[3].Description, items[3].Tags = "   ", nil
	items[4] = storage.CatalogItem{ID: "blank", Name: " ", Description: "\n\n", Files: []storage.CatalogFile{{Text: "\u00a0 "}}}
	faqs := []storage.FAQ{
		{ID: "f1", Question: "Como aplicar?", Answer: "  "},
		{ID: "f2", Question: "Qual a dose?", Answer: "Veja a bula."},
	}
	tests := []struct {
		name                            string
		size, tokens, concurrency, want int
	}{
		{"defaults", 0, 0, 0, 16 /* the default BatchSize */},
		{"three texts", 3, 0, 1, 3},
		{"token budget", 0, 60, 3, 0},
		{"one at a time", 1, 0, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
			emb := newScripted(t, func(_ int, texts []string) ([][]float32, error) {
				time.Sleep(time.Millisecond) // let requests overlap
				for _, s := range texts {
					if strings.TrimSpace(s) == "" {
						return nil, fmt.Errorf("blank text %q sent", s)
					}
				}
				return nil, nil
			})
			opts := ingest.IndexerOptions{BatchSize: tc.size, BatchTokens: tc.tokens, Concurrency: tc.concurrency}
			st, err := ingest.NewIndexer(store, emb, opts).Reindex(ctx, ingest.Sources{Items: items, FAQs: faqs})
			if err != nil {
				t.Fatal(err)
			}
			maxSize := cmpOr(tc.size, 16 /* the default BatchSize */)
			maxTokens := cmpOr(tc.tokens, 200_000 /* the default BatchTokens */)
			seen := map[string]bool{}
			for i, call := range emb.Calls() {
				if len(call) == 0 || len(call) > maxSize {
					t.Errorf("call %d has %d texts, limit %d", i, len(call), maxSize)
				}
				tokens := 0
				for _, s := range call {
					tokens += llm.EstimateTokens(s)
					if seen[s] {
						t.Errorf("text embedded twice: %.40q", s)
					}
					seen[s] = true
				}
				if len(call) > 1 && tokens > maxTokens {
					t.Errorf("call %d has %d tokens, limit %d", i, tokens, maxTokens)
				}
			}
			if tc.want > 1 && !slices.ContainsFunc(emb.Calls(), func(c []string) bool { return len(c) == tc.want }) {
				t.Errorf("no call filled a batch of %d", tc.want)
			}
			if m := int(emb.maxInFlight.Load()); m > cmpOr(tc.concurrency, 2 /* the default Concurrency */) {
				t.Errorf("%d requests in flight, limit %d", m, tc.concurrency)
			}
			c := ragtest.StoreCounts(t, store)
			if c.Chunks != st.Chunks || c.Embedded != c.Chunks {
				t.Errorf("Counts %+v, stats %+v: want every stored chunk embedded", c, st)
			}
			if st.Embedded != emb.texts() || st.Embedded+st.Skipped != st.Chunks {
				t.Errorf("stats %+v, embedder saw %d texts", st, emb.texts())
			}
			for _, ref := range chunkRefs(t, store, storage.KindItem, "blank") {
				t.Errorf("blank item has chunk %+v", ref)
			}
		})
	}
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func markdownDoc(t *testing.T, name, text string) load.ParsedDocument {
	t.Helper()
	d, err := load.ParseDocument(name, []byte(text), nil)
	if err != nil {
		t.Fatalf("ParseDocument(%s): %v", name, err)
	}
	return d
}

const manualMD = `# Manual de aplicação

Introdução ao manual com instruções gerais de segurança para o aplicador.

## Preparo da calda

Encha o tanque até a metade, adicione o produto e complete com água, agitando sempre.

## Limpeza

Lave o pulverizador três vezes após o uso e descarte a água em local adequado.
`

// TestIndexerDocuments covers duplicates (reported, or replaced with
// ReplaceDuplicates), heading paths on chunks and their update when only
// the title changes.
func TestIndexerDocuments(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
		ctx := context.Background()

		t.Run("heading path", func(t *testing.T) {
			store := open(t)
			emb := newScripted(t, nil)
			ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
			doc := markdownDoc(t, "manual.md", manualMD)
			if _, err := ix.IndexDocuments(ctx, []load.ParsedDocument{doc}); err != nil {
				t.Fatal(err)
			}
			cs := storedChunks(t, store, storage.OwnerRef{Kind: storage.KindDocument, ID: "manual.md"})
			if len(cs) == 0 {
				t.Fatal("no chunks")
			}
			for _, c := range cs {
				p := strings.Join(c.HeadingPath, chunk.HeadingSeparator)
				if !strings.HasPrefix(p, "Manual de aplicação") {
					t.Errorf("chunk %d heading path %q, want it to start with the title", c.Seq, p)
				}
				if strings.Contains(c.Content, "Lave o pulverizador") && !strings.HasSuffix(p, chunk.HeadingSeparator+"Limpeza") {
					t.Errorf("chunk %d about cleaning has heading path %q", c.Seq, p)
				}
			}

			// A new title changes the heading paths but no chunk text.
			calls := len(emb.Calls())
			doc.Title = "Guia do aplicador"
			st, err := ix.IndexDocuments(ctx, []load.ParsedDocument{doc})
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded != 0 || st.Written != 1 || len(emb.Calls()) != calls {
				t.Errorf("stats %+v after a title change, want 1 written, nothing embedded", st)
			}
			for _, c := range storedChunks(t, store, storage.OwnerRef{Kind: storage.KindDocument, ID: "manual.md"}) {
				if p := strings.Join(c.HeadingPath, chunk.HeadingSeparator); !strings.HasPrefix(p, "Guia do aplicador") {
					t.Errorf("chunk %d heading path %q after the title change", c.Seq, p)
				}
			}
		})

		same := "Conteúdo idêntico: recomendações de manejo integrado de pragas para a soja."
		docA := load.ParsedDocument{Document: storage.Document{ID: "a", Title: "Original", Content: same}}
		docB := load.ParsedDocument{Document: storage.Document{ID: "b", Title: "Cópia", Content: same}, File: "copia.txt"}

		t.Run("duplicate rejected", func(t *testing.T) {
			store := open(t)
			ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{})
			if _, err := ix.IndexDocuments(ctx, []load.ParsedDocument{docA}); err != nil {
				t.Fatal(err)
			}
			st, err := ix.IndexDocuments(ctx, []load.ParsedDocument{docB})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Duplicates) != 1 {
				t.Fatalf("Duplicates = %v, want one", st.Duplicates)
			}
			d := st.Duplicates[0]
			if d.ExistingID != "a" || d.ExistingTitle != "Original" || d.NewID != "b" || d.Path != "copia.txt" {
				t.Errorf("duplicate error %+v, want b rejected as a copy of a", d)
			}
			if !errors.Is(d, load.ErrDuplicateDocument) || !strings.Contains(d.Error(), `"a"`) {
				t.Errorf("duplicate error %q does not name the existing document", d)
			}
			if _, err := store.Documents().Get(ctx, "b"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("GetDocument(b) = %v, want ErrNotFound", err)
			}
			// Within one call, the first of two equal documents wins.
			docC := docB
			docC.ID = "c"
			st, err = ix.IndexDocuments(ctx, []load.ParsedDocument{docC, docB})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Duplicates) != 2 || st.Duplicates[0].ExistingID != "a" || st.Duplicates[1].ExistingID != "a" {
				t.Errorf("Duplicates = %v, want c and b as copies of a", st.Duplicates)
			}
		})

		t.Run("duplicate replaced", func(t *testing.T) {
			store := open(t)
			ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{ReplaceDuplicates: true})
			if _, err := ix.IndexDocuments(ctx, []load.ParsedDocument{docA}); err != nil {
				t.Fatal(err)
			}
			applies := store.applies.Load()
			st, err := ix.IndexDocuments(ctx, []load.ParsedDocument{docB})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Duplicates) != 0 || st.Written != 1 {
				t.Errorf("stats %+v, want b written and no duplicate", st)
			}
			if n := store.applies.Load() - applies; n != 1 {
				t.Errorf("%d writes, want 1 (replacement in one transaction)", n)
			}
			if _, err := store.Documents().Get(ctx, "a"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("GetDocument(a) = %v, want ErrNotFound", err)
			}
			if got, err := store.Documents().ByHash(ctx, storage.ContentHash(same)); err != nil || got.ID != "b" {
				t.Errorf("DocumentByHash = %q, %v; want b", got.ID, err)
			}
			if refs := chunkRefs(t, store, storage.KindDocument, "a"); len(refs) != 0 {
				t.Errorf("chunks of the replaced document left: %v", refs)
			}
			if c := ragtest.StoreCounts(t, store); c.Documents != 1 || c.Chunks == 0 {
				t.Errorf("Counts %+v, want 1 document with chunks", c)
			}
		})

		t.Run("content moved to another id", func(t *testing.T) {
			// a takes new content while b takes a's old content: no duplicate.
			store := open(t)
			ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{})
			if _, err := ix.IndexDocuments(ctx, []load.ParsedDocument{docA}); err != nil {
				t.Fatal(err)
			}
			a2 := docA
			a2.Content, a2.ContentHash = "Novo conteúdo do documento a, sobre milho.", ""
			st, err := ix.IndexDocuments(ctx, []load.ParsedDocument{a2, docB})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Duplicates) != 0 || st.Written != 2 {
				t.Errorf("stats %+v, want both written", st)
			}
		})
	})
}

// TestIndexerInvalidVectors checks that a broken embedder's vectors are
// rejected before the store with a typed error naming the text, that they
// are not counted as embedded, and that nothing is written (issue 16).
func TestIndexerInvalidVectors(t *testing.T) {
	nan := func(_ int, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, ragtest.Dims)
			out[i][i%ragtest.Dims] = float32(math.NaN())
		}
		return out, nil
	}
	short := func(_ int, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 0}
		}
		return out, nil
	}
	missing := func(_ int, texts []string) ([][]float32, error) {
		return make([][]float32, len(texts)-1), nil
	}
	nilVecs := func(_ int, texts []string) ([][]float32, error) {
		return make([][]float32, len(texts)), nil // nil vectors
	}
	empty := func(_ int, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{}
		}
		return out, nil
	}
	zero := func(_ int, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, ragtest.Dims)
		}
		return out, nil
	}
	tests := []struct {
		name string
		fn   func(int, []string) ([][]float32, error)
		want error
	}{
		{"NaN", nan, vector.ErrNotFinite},
		{"wrong length", short, vector.ErrDimensionMismatch},
		{"too few vectors", missing, vector.ErrBatchSize},
		{"nil vectors", nilVecs, vector.ErrEmptyVector},
		{"empty vectors", empty, vector.ErrEmptyVector},
		{"zero vectors", zero, vector.ErrZeroVector},
	}
	eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				store := open(t)
				emb := newScripted(t, tc.fn)
				st, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(context.Background(), ragtest.SampleItems(3))
				if err == nil {
					t.Fatal("no error")
				}
				var ve *vector.VectorError
				if !errors.Is(err, tc.want) || (tc.want != vector.ErrBatchSize && (!errors.As(err, &ve) || ve.Index != 0)) {
					t.Errorf("err = %v, want %v naming text 0", err, tc.want)
				}
				if st.Failed != 3 || st.Written != 0 {
					t.Errorf("stats %+v, want 3 failed", st)
				}
				if st.Embedded != 0 {
					t.Errorf("Stats.Embedded = %d, want 0: no valid vector came back", st.Embedded)
				}
				if c := ragtest.StoreCounts(t, store); c != (storage.Counts{}) {
					t.Errorf("Counts = %+v, want nothing written", c)
				}
			})
		}
	})
}

// TestIndexerDimensionCheck rejects an embedder of the wrong size before
// embedding anything.
func TestIndexerDimensionCheck(t *testing.T) {
	store, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	e, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 64})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	emb := vector.EmbedderFunc{Dims: 64, Fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		calls++
		return e.Embed(ctx, texts)
	}}
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	st, err := ix.Reindex(context.Background(), ingest.Sources{Items: ragtest.SampleItems(2)})
	if !errors.Is(err, storage.ErrDimensionMismatch) {
		t.Fatalf("err = %v, want ErrDimensionMismatch", err)
	}
	if calls != 0 || st.Failed != 2 {
		t.Errorf("%d embedding calls, stats %+v; want none and 2 failed", calls, st)
	}
}

// TestIndexerWithoutEmbedder stores chunks without vectors and stays
// idempotent.
func TestIndexerWithoutEmbedder(t *testing.T) {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	rs := &recordingStore{Backend: store}
	ix := ingest.NewIndexer(rs, nil, ingest.IndexerOptions{})
	st, err := ix.IndexItems(ctx, ragtest.SampleItems(4))
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded != 0 || st.Written != 4 {
		t.Errorf("stats %+v", st)
	}
	if c := ragtest.StoreCounts(t, rs); c.Chunks != 4 || c.Embedded != 0 {
		t.Errorf("Counts %+v, want 4 chunks without embeddings", c)
	}
	applies := rs.applies.Load()
	if st, err := ix.IndexItems(ctx, ragtest.SampleItems(4)); err != nil || st.Written != 0 || rs.applies.Load() != applies {
		t.Errorf("second run: %+v, %v; want no write", st, err)
	}
	// Adding an embedder later embeds the stored chunks.
	st, err = ingest.NewIndexer(rs, ragtest.HashEmbedder(t), ingest.IndexerOptions{}).IndexItems(ctx, ragtest.SampleItems(4))
	if err != nil || st.Embedded != 4 {
		t.Errorf("with an embedder: %+v, %v; want 4 embedded", st, err)
	}
}

// TestIndexerProgress checks that progress is reported after every write
// batch with a growing Done, ending at Total, for each kind.
func TestIndexerProgress(t *testing.T) {
	var got []ingest.Progress
	store, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{
		WriteBatch: 4,
		Progress:   func(p ingest.Progress) { got = append(got, p) },
	})
	src := ingest.Sources{Items: ragtest.SampleItems(10), FAQs: []storage.FAQ{{ID: "f", Question: "Q?", Answer: "A."}}}
	if _, err := ix.Reindex(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	want := []ingest.Progress{
		{Kind: storage.KindItem, Done: 4, Total: 10},
		{Kind: storage.KindItem, Done: 8, Total: 10},
		{Kind: storage.KindItem, Done: 10, Total: 10},
		{Kind: storage.KindFAQ, Done: 1, Total: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("progress calls %+v, want %d", got, len(want))
	}
	for i := range want {
		if got[i].Kind != want[i].Kind || got[i].Done != want[i].Done || got[i].Total != want[i].Total {
			t.Errorf("progress %d = %+v, want %+v", i, got[i], want[i])
		}
		if i > 0 && got[i].Kind == got[i-1].Kind && (got[i].Done <= got[i-1].Done || got[i].Embedded < got[i-1].Embedded) {
			t.Errorf("progress %d = %+v does not grow from %+v", i, got[i], got[i-1])
		}
	}
	if got[2].Embedded != 10 {
		t.Errorf("items progress Embedded = %d, want 10", got[2].Embedded)
	}

	// With several writers, groups may finish in any order but Done still
	// grows to Total, once per group.
	var dones []int
	store2, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	ix = ingest.NewIndexer(store2, ragtest.HashEmbedder(t), ingest.IndexerOptions{
		WriteBatch: 3, WriteConcurrency: 3,
		Progress: func(p ingest.Progress) { dones = append(dones, p.Done) },
	})
	if _, err := ix.IndexItems(context.Background(), ragtest.SampleItems(20)); err != nil {
		t.Fatal(err)
	}
	increasing := true
	for i := 1; i < len(dones); i++ {
		increasing = increasing && dones[i] > dones[i-1]
	}
	if len(dones) != 7 || !increasing || dones[6] != 20 {
		t.Errorf("Done values %v, want 7 increasing values ending at 20", dones)
	}
}

// TestIndexerCancelled stops at once on a cancelled context.
func TestIndexerCancelled(t *testing.T) {
	store, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{}).IndexItems(ctx, ragtest.SampleItems(3))
	if !errors.Is(err, context.Canceled) || st.Failed != 3 {
		t.Errorf("err = %v, stats %+v; want context.Canceled and 3 failed", err, st)
	}
	if c := ragtest.StoreCounts(t, store); c != (storage.Counts{}) {
		t.Errorf("Counts = %+v after a cancelled run", c)
	}
}

func TestStatsString(t *testing.T) {
	st := ingest.Stats{Items: 3, FAQs: 2, Documents: 1, Chunks: 9, Embedded: 4, Skipped: 5, Failed: 1, Duration: 1234567 * time.Microsecond}
	want := "items=3 faqs=2 documents=1 chunks=9 embedded=4 skipped=5 failed=1 duration=1.235s"
	if got := st.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
