package ingest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hybridrag/hybridrag/internal/tracetest"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// failingApply fails every write.
type failingApply struct{ storage.Backend }

func (failingApply) Apply(context.Context, storage.Batch) error { return errors.New("disk full") }

func TestIndexerTracer(t *testing.T) {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: ragtest.Dims})
	store, err := db.Tenant("trace")
	if err != nil {
		t.Fatal(err)
	}
	items := ragtest.SampleItems(5)
	rec := &tracetest.Recorder{}
	ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{WriteBatch: 2, BatchSize: 2, Tracer: rec})
	st, err := ix.IndexItems(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	batches := rec.Named(tracetest.SpanBatch)
	if len(batches) != 3 {
		t.Fatalf("%d batch spans, want 3 (5 owners, 2 a group)", len(batches))
	}
	var sum trace.BatchEndData
	owners := 0
	for _, b := range batches {
		s, e := b.Start.(trace.BatchStartData), b.End.(trace.BatchEndData)
		if s.Kind != storage.KindItem || e.Err != nil {
			t.Errorf("batch %+v → %+v", s, e)
		}
		owners += s.Owners
		sum.Written += e.Written
		sum.Chunks += e.Chunks
		sum.Embedded += e.Embedded
		sum.Skipped += e.Skipped
	}
	if owners != 5 || sum.Written != st.Written || sum.Chunks != st.Chunks || sum.Embedded != st.Embedded || sum.Skipped != st.Skipped {
		t.Errorf("batches sum to %d owners, %+v; stats %+v", owners, sum, st)
	}
	texts := 0
	for _, e := range rec.Named(tracetest.SpanEmbed) {
		s, en := e.Start.(trace.EmbedStartData), e.End.(trace.EmbedEndData)
		if s.Query || s.Kind != storage.KindItem || s.Texts < 1 || s.Texts > 2 || s.Tokens < 1 || en.Vectors != s.Texts || en.Err != nil {
			t.Errorf("embed %+v → %+v", s, en)
		}
		if p := rec.Spans()[e.Parent]; p.Name != tracetest.SpanBatch {
			t.Errorf("embed span's parent is %s, want a batch", p.Name)
		}
		texts += s.Texts
	}
	if texts != st.Embedded || texts == 0 {
		t.Errorf("embed spans carry %d texts, stats %d embedded", texts, st.Embedded)
	}

	t.Run("unchanged", func(t *testing.T) {
		rec := &tracetest.Recorder{}
		ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{WriteBatch: 2, Tracer: rec})
		if _, err := ix.IndexItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		if err := rec.Check(); err != nil {
			t.Fatal(err)
		}
		unchanged := 0
		for _, b := range rec.Named(tracetest.SpanBatch) {
			e := b.End.(trace.BatchEndData)
			if e.Written != 0 || e.Embedded != 0 {
				t.Errorf("batch end %+v", e)
			}
			unchanged += e.Unchanged
		}
		if unchanged != 5 || len(rec.Named(tracetest.SpanEmbed)) != 0 {
			t.Errorf("%d unchanged, %d embed spans", unchanged, len(rec.Named(tracetest.SpanEmbed)))
		}
	})

	t.Run("write fails", func(t *testing.T) {
		other, err := db.Tenant("trace-fail")
		if err != nil {
			t.Fatal(err)
		}
		rec := &tracetest.Recorder{}
		ix := ingest.NewIndexer(failingApply{other}, ragtest.HashEmbedder(t), ingest.IndexerOptions{WriteBatch: 2, Tracer: rec})
		if _, err := ix.IndexItems(ctx, items); err == nil {
			t.Fatal("no error")
		}
		if err := rec.Check(); err != nil {
			t.Fatal(err)
		}
		b := rec.Named(tracetest.SpanBatch)
		if len(b) == 0 || b[0].End.(trace.BatchEndData).Err == nil || b[0].End.(trace.BatchEndData).Written != 0 {
			t.Errorf("batches %+v", b)
		}
	})
}
