package memory

import "slices"

// topK keeps the k best values pushed into it, by a strict "better"
// ordering that must be total (ties broken) for results to be
// deterministic. It is a bounded max-heap on "worse", so each push costs
// O(log k) and the worst kept value is at the root.
type topK[T any] struct {
	k      int
	better func(a, b T) bool
	h      []T
}

func newTopK[T any](k int, better func(a, b T) bool) *topK[T] {
	return &topK[T]{k: k, better: better, h: make([]T, 0, min(k, 64))}
}

// full reports whether the heap holds k values; then worst() is the bar a
// new value must beat.
func (t *topK[T]) full() bool { return len(t.h) >= t.k }

func (t *topK[T]) worst() T { return t.h[0] }

func (t *topK[T]) push(v T) {
	if len(t.h) < t.k {
		t.h = append(t.h, v)
		t.up(len(t.h) - 1)
		return
	}
	if !t.better(v, t.h[0]) {
		return
	}
	t.h[0] = v
	t.down(0)
}

// worse orders the heap: the root is the worst value.
func (t *topK[T]) worse(i, j int) bool { return t.better(t.h[j], t.h[i]) }

func (t *topK[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.worse(i, p) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *topK[T]) down(i int) {
	n := len(t.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && t.worse(r, l) {
			m = r
		}
		if !t.worse(m, i) {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// sorted returns the kept values, best first. The heap is consumed.
func (t *topK[T]) sorted() []T {
	out := t.h
	t.h = nil
	slices.SortFunc(out, func(a, b T) int {
		switch {
		case t.better(a, b):
			return -1
		case t.better(b, a):
			return 1
		}
		return 0
	})
	return out
}
