package rag

import (
	"context"
	"sync/atomic"
	"time"
)

// freshCheckInterval is the least time between two reads of the store's
// change marker (storage.Store.Version): a search reads it at most once
// per interval, so a store's writes reach the Searcher's derived state
// within about this long (plus the rebuild), whoever wrote them. For
// PostgreSQL a read is one primary-key lookup; once a second it is noise
// next to the searches.
const freshCheckInterval = time.Second

// freshRebuildTimeout bounds one background rebuild.
const freshRebuildTimeout = 5 * time.Minute

// freshRest is how many times its own duration the Searcher waits after
// a rebuild before it starts another: under a stream of writes (a bulk
// load) rebuilding takes at most a fifth of the time, however large the
// store.
const freshRest = 4

// freshness tracks the store version the Searcher's derived state
// (vocabularies, IDF weights, calibration samples, the discontinued
// index) was built from. The zero value knows no version yet.
type freshness struct {
	// every is the least time between two reads of the marker
	// (freshCheckInterval; tests shorten it).
	every time.Duration
	// checked is when the marker was last read (UnixNano).
	checked atomic.Int64
	// seen is the version the derived state reflects; valid once known.
	seen  atomic.Uint64
	known atomic.Bool
	// rebuilding is set while a background rebuild runs: one at a time.
	rebuilding atomic.Bool
	// rest is when the next rebuild may start (UnixNano): freshRest times
	// the last rebuild's duration after it ended.
	rest atomic.Int64
	// rebuilds counts the rebuilds that completed (tests read it).
	rebuilds atomic.Int64
}

// keepFresh reads the store's change marker, at most once per
// freshCheckInterval, and when it moved since the derived state was
// built starts a background rebuild of that state (unless one is
// running, or the last one ended less than freshRest times its duration
// ago). The search goes on with the state it has: searches during
// a rebuild use the previous snapshot, swapped per kind when it is done.
// A failed read or rebuild leaves the state as it was, to be retried at
// the next check.
func (s *Searcher) keepFresh(ctx context.Context) {
	now := time.Now().UnixNano()
	last := s.fresh.checked.Load()
	if now-last < int64(s.fresh.every) || !s.fresh.checked.CompareAndSwap(last, now) {
		return
	}
	if s.fresh.rebuilding.Load() || now < s.fresh.rest.Load() {
		return
	}
	v, err := s.store.Version(ctx)
	if err != nil {
		return
	}
	if !s.fresh.known.Load() {
		// The first read: whatever was built so far, or is built next,
		// reads records at least as new as v.
		s.fresh.seen.Store(v)
		s.fresh.known.Store(true)
		return
	}
	if v == s.fresh.seen.Load() || !s.fresh.rebuilding.CompareAndSwap(false, true) {
		return
	}
	go s.rebuild(context.WithoutCancel(ctx), v)
}

// rebuild builds again, from the records stored now, every part of the
// derived state already built, and swaps each in when it is ready, unless
// the part changed meanwhile (a Refresh dropped it, or a search after the
// Refresh built it from newer records); parts never built are left to
// their first use. It records v (read before
// the rebuild started) as seen once everything is rebuilt, so that writes
// made during the rebuild trigger another one.
func (s *Searcher) rebuild(ctx context.Context, v uint64) {
	start := time.Now()
	defer func() {
		end := time.Now()
		s.fresh.rest.Store(end.Add(freshRest * end.Sub(start)).UnixNano())
		s.fresh.rebuilding.Store(false)
	}()
	ctx, cancel := context.WithTimeout(ctx, freshRebuildTimeout)
	defer cancel()
	for _, k := range kinds {
		i := k.slot()
		if old := s.lex.kinds[i].Load(); old != nil {
			l, err := s.readLexicon(ctx, k, s.scorers[i])
			if err != nil {
				return
			}
			s.lex.kinds[i].CompareAndSwap(old, l)
		}
		if old := s.calib.kinds[i].Load(); old != nil {
			c, err := buildCalibrationSample(ctx, s.store, k.ownerKind(), defaultCalibrationOwners)
			if err != nil {
				return
			}
			s.calib.kinds[i].CompareAndSwap(old, c)
		}
	}
	// The frame word sets are keyed by scorer; the old lexicons' scorers
	// are gone.
	if old := s.disc.Load(); old != nil {
		ix := s.buildDiscontinued(ctx)
		if ix == nil {
			return
		}
		s.disc.CompareAndSwap(old, ix)
	}
	s.fresh.seen.Store(v)
	s.fresh.rebuilds.Add(1)
}
