package ingest_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// TestIndexerEmbedderPanic: an embedder that panics fails its group of
// owners with a typed error carrying the panic value, instead of crashing
// the process from the Indexer's worker goroutine; the groups written
// before stay written, the failing one writes nothing (issue 16).
func TestIndexerEmbedderPanic(t *testing.T) {
	errBoom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		value any
		is    error // also matched by the error, besides ErrEmbedderPanic
	}{
		{"string", "index out of range", nil},
		{"error", errBoom, errBoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachStore(t, func(t *testing.T, open func(*testing.T) *recordingStore) {
				store := open(t)
				// One text per request, one request at a time, two owners per
				// write: items 0 and 1 are written, item 2's request panics.
				emb := newScripted(t, func(_ int, texts []string) ([][]float32, error) {
					if strings.Contains(texts[0], "Produto 2") {
						panic(tc.value)
					}
					return nil, nil
				})
				ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{BatchSize: 1, Concurrency: 1, WriteBatch: 2})
				st, err := ix.IndexItems(context.Background(), ragtest.SampleItems(4))
				if !errors.Is(err, ingest.ErrEmbedderPanic) {
					t.Fatalf("err = %v, want one wrapping ErrEmbedderPanic", err)
				}
				var pe *ingest.EmbedderPanicError
				if !errors.As(err, &pe) || pe.Value != tc.value || pe.Texts != 1 || len(pe.Stack) == 0 {
					t.Errorf("err = %#v, want an *EmbedderPanicError with value %v, 1 text and a stack", err, tc.value)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("err = %v, want it to wrap the panic value %v", err, tc.is)
				}
				if st.Written != 2 || st.Failed != 2 || st.Embedded != 2 {
					t.Errorf("stats %+v, want 2 written, 2 failed, 2 embedded", st)
				}
				if c := ragtest.StoreCounts(t, store); c != (storage.Counts{Items: 2, Chunks: 2, Embedded: 2}) {
					t.Errorf("Counts = %+v, want items 0 and 1 alone", c)
				}
			})
		})
	}
}

// deafEmbedder ignores its context: Embed blocks until release is closed,
// then reports on returned.
type deafEmbedder struct {
	dims     int
	started  chan struct{}
	release  chan struct{}
	returned chan struct{}
}

func newDeaf(dims int) *deafEmbedder {
	return &deafEmbedder{dims: dims, started: make(chan struct{}, 64), release: make(chan struct{}), returned: make(chan struct{}, 64)}
}

func (e *deafEmbedder) Dimensions() int { return e.dims }

func (e *deafEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.started <- struct{}{}
	<-e.release
	defer func() { e.returned <- struct{}{} }()
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, e.dims)
		out[i][0] = 1
	}
	return out, nil
}

// TestIndexerEmbedderIgnoresDeadline: an embedder that ignores its context
// does not hold the Indexer past the context's deadline; the abandoned
// call finishes in the background once the embedder returns, and nothing
// is written (issue 16).
func TestIndexerEmbedderIgnoresDeadline(t *testing.T) {
	store, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	emb := newDeaf(ragtest.Dims)
	released := false
	release := func() {
		if !released {
			released = true
			close(emb.release)
		}
	}
	t.Cleanup(release)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	type result struct {
		st  ingest.Stats
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		st, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(ctx, ragtest.SampleItems(3))
		done <- result{st, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("IndexItems with a 200ms deadline had not returned after 5s")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("IndexItems took %v with a 200ms deadline", took)
	}
	if !errors.Is(r.err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", r.err)
	}
	if r.st.Failed != 3 || r.st.Written != 0 || r.st.Embedded != 0 {
		t.Errorf("stats %+v, want 3 failed, nothing written or embedded", r.st)
	}
	if c := ragtest.StoreCounts(t, store); c != (storage.Counts{}) {
		t.Errorf("Counts = %+v, want nothing written", c)
	}

	// The abandoned call is still running; it finishes once the embedder
	// returns, and its goroutine exits.
	if n := goroutinesIn("(*deafEmbedder).Embed("); n != 1 {
		t.Errorf("%d goroutines in the embedder after the run, want the abandoned one", n)
	}
	release()
	select {
	case <-emb.returned:
	case <-time.After(5 * time.Second):
		t.Fatal("the embedder never returned")
	}
	deadline := time.Now().Add(5 * time.Second)
	for goroutinesIn("ingest.(*Indexer).embedBatch") > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := goroutinesIn("ingest.(*Indexer).embedBatch"); n > 0 {
		t.Errorf("%d embedding goroutines left after the embedder returned, want 0", n)
	}
	if c := ragtest.StoreCounts(t, store); c != (storage.Counts{}) {
		t.Errorf("Counts = %+v after the abandoned call finished, want nothing written", c)
	}
}

// compile-time check that the fake is an Embedder.
var _ vector.Embedder = (*deafEmbedder)(nil)

// goroutinesIn counts the goroutines with fn in their stack.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			c := 0
			for _, g := range strings.Split(string(buf[:n]), "\n\n") {
				if strings.Contains(g, fn) {
					c++
				}
			}
			return c
		}
		buf = make([]byte, 2*len(buf))
	}
}
