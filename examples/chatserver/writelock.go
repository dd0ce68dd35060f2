package main

import (
	"context"
	"slices"
	"sync"
)

// recordLocks serializes the writes of one record (and, for documents,
// of one content: see putDocument) while writes of other records run
// concurrently: a slow write (a large record, a slow embedder or store)
// holds up only the writers of the same keys. It replaces one global
// write lock, behind which a single 20-second write stalled every other.
// Entries exist while held or awaited, so the table stays as small as the
// writes in flight. The zero value is ready; it is safe for concurrent
// use.
type recordLocks struct {
	mu sync.Mutex
	m  map[string]*recordLock
}

// recordLock is one key's lock: a one-slot semaphore (so a waiter can give
// up when its context ends) and the number of holders and waiters.
type recordLock struct {
	sem  chan struct{}
	refs int
}

// lock takes the locks of keys, in sorted order (two writers needing the
// same keys cannot deadlock), and returns the function releasing them;
// when ctx ends first, it releases what it took and returns ctx's error.
func (l *recordLocks) lock(ctx context.Context, keys ...string) (unlock func(), err error) {
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	held := make([]string, 0, len(keys))
	release := func() {
		for _, k := range held {
			l.release(k, true)
		}
	}
	for _, k := range keys {
		e := l.acquire(k)
		select {
		case e.sem <- struct{}{}:
			held = append(held, k)
		case <-ctx.Done():
			l.release(k, false)
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

// acquire returns key's entry, counting the caller in.
func (l *recordLocks) acquire(key string) *recordLock {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*recordLock{}
	}
	e := l.m[key]
	if e == nil {
		e = &recordLock{sem: make(chan struct{}, 1)}
		l.m[key] = e
	}
	e.refs++
	return e
}

// release counts the caller out of key's entry, unlocking it when the
// caller held it, and drops the entry when nobody holds or awaits it.
func (l *recordLocks) release(key string, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[key]
	if held {
		<-e.sem
	}
	if e.refs--; e.refs == 0 {
		delete(l.m, key)
	}
}

// size is the number of keys held or awaited.
func (l *recordLocks) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// recordKey is the lock key of a record.
func recordKey(kind, id string) string { return kind + "\x00" + id }
