package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Retry defaults: four attempts (one call and three retries, as the
// indexer always had), backoff ceilings of 1 s, 2 s, 4 s… up to 30 s.
const (
	defaultRetryAttempts = 4
	defaultRetryBase     = time.Second
	defaultRetryMax      = 30 * time.Second
)

// TransientError is implemented by errors that know whether the failure
// is transient: whether repeating the same call later may succeed (a rate
// limit, an overloaded or restarting server, a timeout) or not (a bad
// request, a wrong key). Embedder adapters opt in to retries by returning
// errors that implement it; see [IsRetryable].
//
// The method is not called Retryable so that error types with a Retryable
// field (llm.APIError) can implement it.
type TransientError interface {
	Transient() bool
}

// RetryDelayError is implemented by errors that carry the delay the server
// asked for before the next attempt, such as an HTTP Retry-After header; 0
// means none was given.
type RetryDelayError interface {
	RetryDelay() time.Duration
}

// IsRetryable reports whether the call that failed with err may succeed if
// repeated, and the delay the error asks for before that (0 when none).
//
// The first error in err's chain that implements [TransientError]
// decides. Without one, an error with a Timeout() bool method that reports
// true (a net.Error timeout, an http.Client timeout) is retryable, and
// anything else is not. Context cancellation and deadline errors are never
// retryable: the caller's context is done. The delay is that of the first
// error in the chain implementing [RetryDelayError], and is only reported
// for a retryable err.
func IsRetryable(err error) (retry bool, after time.Duration) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false, 0
	}
	var te TransientError
	if errors.As(err, &te) {
		retry = te.Transient()
	} else {
		var to interface{ Timeout() bool }
		retry = errors.As(err, &to) && to.Timeout()
	}
	if !retry {
		return false, 0
	}
	var de RetryDelayError
	if errors.As(err, &de) {
		after = max(de.RetryDelay(), 0)
	}
	return true, after
}

// RetryPolicy configures [WithRetry]. The zero value gives the defaults:
// four attempts (one call and three retries), backoff ceilings of 1 s,
// 2 s, 4 s… up to 30 s.
type RetryPolicy struct {
	// Attempts is the most calls of the wrapped embedder for one batch,
	// the first included; 0 means 4, and 1 or a
	// negative value means no retries.
	Attempts int
	// Base is the backoff ceiling before the first retry; it doubles
	// before every further retry up to Max. 0 or less means
	// 1 s.
	Base time.Duration
	// Max caps the backoff ceiling; 0 or less means 30 s.
	Max time.Duration
}

// withDefaults returns p with its zero fields replaced by the defaults.
func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.Attempts == 0:
		p.Attempts = defaultRetryAttempts
	case p.Attempts < 0:
		p.Attempts = 1
	}
	if p.Base <= 0 {
		p.Base = defaultRetryBase
	}
	if p.Max <= 0 {
		p.Max = defaultRetryMax
	}
	return p
}

// RetryEmbedder is an [Embedder] that retries the transient failures of
// the embedder it wraps. Create one with [WithRetry].
//
// A RetryEmbedder is safe for concurrent use when the wrapped embedder
// is.
type RetryEmbedder struct {
	inner  Embedder
	policy RetryPolicy
	// jitter returns a uniform random number in [0, n); tests replace it.
	jitter func(n int64) int64
}

// WithRetry returns a wrapper around e that repeats a failed batch while
// its error is retryable ([IsRetryable]) and attempts remain (see
// [RetryPolicy]).
//
// Before retry k (k = 1, 2, …) it waits a uniformly random time between 0
// and min(Max, Base·2^(k-1)), the "full jitter" exponential backoff that
// keeps many clients from retrying in step. When the error asks for a
// delay ([RetryDelayError], an HTTP Retry-After) the wait is at least that
// delay, which Max does not cap: the server knows when it will take
// requests again, and ctx bounds every wait.
//
// Embed stops as soon as ctx is done: it makes no attempt after that and
// abandons a wait. Errors that are not retryable, and the wrapped
// embedder's answers (right or wrong), are returned at once; combine with
// [Checked] to check the answers. WithRetry does no I/O; a nil e yields a
// RetryEmbedder whose Embed returns ErrNilEmbedder.
func WithRetry(e Embedder, p RetryPolicy) *RetryEmbedder {
	return &RetryEmbedder{inner: e, policy: p.withDefaults(), jitter: rand.Int64N}
}

// Embed embeds texts with the wrapped embedder, retrying as described at
// [WithRetry].
//
// An error of the first and only attempt is returned as the wrapped
// embedder returned it. After retries the last error is returned wrapped
// with the number of attempts made. When ctx is done during a wait, the
// error wraps both ctx.Err() and the last error of the wrapped embedder,
// so errors.Is(err, context.Canceled) and errors.As on the embedder's
// error type both work.
func (r *RetryEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if r.inner == nil {
		return nil, ErrNilEmbedder
	}
	for attempt := 1; ; attempt++ {
		vecs, err := r.inner.Embed(ctx, texts)
		if err == nil {
			return vecs, nil
		}
		retry, after := IsRetryable(err)
		if !retry || attempt >= r.policy.Attempts || ctx.Err() != nil {
			if attempt == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("vector: embed %d texts: gave up after %d attempts: %w", len(texts), attempt, err)
		}
		wait := max(r.backoff(attempt), after)
		if cerr := sleep(ctx, wait); cerr != nil {
			return nil, fmt.Errorf("vector: embed %d texts: %w while waiting to retry attempt %d: %w", len(texts), cerr, attempt, err)
		}
	}
}

// backoff returns the full-jitter wait after failed attempt number
// failed (1-based): uniform in [0, min(Max, Base·2^(failed-1))].
func (r *RetryEmbedder) backoff(failed int) time.Duration {
	ceil := r.policy.Max
	if shift := failed - 1; shift < 63 {
		if b := r.policy.Base << shift; b>>shift == r.policy.Base && b > 0 && b < ceil {
			ceil = b
		}
	}
	n := int64(ceil)
	if n < math.MaxInt64 {
		n++
	}
	return time.Duration(r.jitter(n))
}

// sleep waits for d or until ctx is done, whichever comes first, and
// returns ctx.Err() in the second case.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Dimensions returns the wrapped embedder's dimension (0 when it is nil).
func (r *RetryEmbedder) Dimensions() int {
	if r.inner == nil {
		return 0
	}
	return r.inner.Dimensions()
}

// Unwrap returns the wrapped embedder, so that callers can find its
// optional capabilities (see [SuggestThreshold]).
func (r *RetryEmbedder) Unwrap() Embedder { return r.inner }
