package vector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// apiError is a provider error that opts in to retries.
type apiError struct {
	status int
	after  time.Duration
}

func (e *apiError) Error() string             { return fmt.Sprintf("status %d", e.status) }
func (e *apiError) Transient() bool           { return e.status == 429 || e.status >= 500 }
func (e *apiError) RetryDelay() time.Duration { return e.after }

// timeoutError is a transport timeout that says nothing about retries.
type timeoutError struct{}

func (timeoutError) Error() string { return "i/o timeout" }
func (timeoutError) Timeout() bool { return true }

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantRetry bool
		wantAfter time.Duration
	}{
		{name: "nil", err: nil},
		{name: "plain", err: errors.New("boom")},
		{name: "429", err: &apiError{status: 429}, wantRetry: true},
		{name: "429 wrapped with Retry-After", err: fmt.Errorf("embed: %w", &apiError{status: 429, after: 3 * time.Second}), wantRetry: true, wantAfter: 3 * time.Second},
		{name: "negative Retry-After", err: &apiError{status: 503, after: -time.Second}, wantRetry: true},
		{name: "400 with Retry-After", err: &apiError{status: 400, after: time.Second}},
		{name: "timeout", err: fmt.Errorf("post: %w", timeoutError{}), wantRetry: true},
		{name: "os deadline", err: os.ErrDeadlineExceeded, wantRetry: true},
		{name: "TransientError decides over Timeout", err: fmt.Errorf("%w: %w", &apiError{status: 401}, timeoutError{})},
		{name: "context canceled", err: fmt.Errorf("%w: %w", &apiError{status: 503}, context.Canceled)},
		{name: "context deadline", err: context.DeadlineExceeded},
		{name: "contract error", err: &batchSizeError{got: 1, want: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retry, after := IsRetryable(tt.err)
			if retry != tt.wantRetry || after != tt.wantAfter {
				t.Errorf("IsRetryable(%v) = %v, %v; want %v, %v", tt.err, retry, after, tt.wantRetry, tt.wantAfter)
			}
		})
	}
}

// flakyEmbedder fails with errs[i] on call i, then succeeds; it records
// when each call was made.
type flakyEmbedder struct {
	errs  []error
	calls []time.Time
}

func (f *flakyEmbedder) Dimensions() int { return 1 }

func (f *flakyEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.calls = append(f.calls, time.Now())
	if n := len(f.calls) - 1; n < len(f.errs) {
		return nil, f.errs[n]
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1}
	}
	return out, nil
}

// waits returns the time between consecutive calls.
func (f *flakyEmbedder) waits() []time.Duration {
	var w []time.Duration
	for i := 1; i < len(f.calls); i++ {
		w = append(w, f.calls[i].Sub(f.calls[i-1]))
	}
	return w
}

func repeat(err error, n int) []error {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// maxJitter makes the backoff wait its whole ceiling.
func maxJitter(n int64) int64 { return n - 1 }

// TestWithRetry runs on synctest's fake clock: the waits take no real
// time and are measured exactly.
func TestWithRetry(t *testing.T) {
	busy := &apiError{status: 503}
	bad := &apiError{status: 400}
	tests := []struct {
		name      string
		policy    RetryPolicy
		errs      []error
		jitter    func(int64) int64
		wantErr   error // nil: success
		wantCalls int
		wantWaits []time.Duration
	}{
		{name: "success", wantCalls: 1},
		{name: "retries until success", errs: repeat(busy, 3), jitter: maxJitter, wantCalls: 4,
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "gives up after Attempts", errs: repeat(busy, 10), jitter: maxJitter, wantErr: busy, wantCalls: 4,
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "Max caps the ceiling", policy: RetryPolicy{Attempts: 6, Base: time.Second, Max: 3 * time.Second}, errs: repeat(busy, 5), jitter: maxJitter,
			wantCalls: 6, wantWaits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{name: "full jitter from zero", policy: RetryPolicy{Base: time.Minute}, errs: repeat(busy, 2), jitter: func(int64) int64 { return 0 },
			wantCalls: 3, wantWaits: []time.Duration{0, 0}},
		{name: "not retryable", errs: []error{bad}, wantErr: bad, wantCalls: 1},
		{name: "not retryable after a retry", errs: []error{busy, bad}, jitter: maxJitter, wantErr: bad, wantCalls: 2,
			wantWaits: []time.Duration{time.Second}},
		{name: "no retries", policy: RetryPolicy{Attempts: 1}, errs: []error{busy}, wantErr: busy, wantCalls: 1},
		{name: "negative Attempts means no retries", policy: RetryPolicy{Attempts: -3}, errs: []error{busy}, wantErr: busy, wantCalls: 1},
		{name: "Retry-After is a floor", errs: []error{&apiError{status: 429, after: 10 * time.Second}, &apiError{status: 429, after: 1}},
			jitter: func(int64) int64 { return int64(500 * time.Millisecond) }, wantCalls: 3,
			wantWaits: []time.Duration{10 * time.Second, 500 * time.Millisecond}},
		{name: "Retry-After beyond Max", policy: RetryPolicy{Max: 2 * time.Second}, errs: []error{&apiError{status: 429, after: time.Minute}},
			jitter: maxJitter, wantCalls: 2, wantWaits: []time.Duration{time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inner := &flakyEmbedder{errs: tt.errs}
				r := WithRetry(inner, tt.policy)
				if tt.jitter != nil {
					r.jitter = tt.jitter
				}
				got, err := r.Embed(context.Background(), []string{"a", "b"})
				switch {
				case tt.wantErr == nil && (err != nil || len(got) != 2):
					t.Fatalf("Embed = %v, %v; want 2 vectors", got, err)
				case tt.wantErr != nil && (!errors.Is(err, tt.wantErr) || got != nil):
					t.Fatalf("Embed = %v, %v; want nil, %v", got, err, tt.wantErr)
				case tt.wantErr != nil && tt.wantCalls == 1 && err != tt.wantErr:
					t.Errorf("err = %v; a single attempt's error should be returned as is", err)
				}
				if len(inner.calls) != tt.wantCalls {
					t.Errorf("%d calls, want %d", len(inner.calls), tt.wantCalls)
				}
				if w := inner.waits(); fmt.Sprint(w) != fmt.Sprint(tt.wantWaits) {
					t.Errorf("waits = %v, want %v", w, tt.wantWaits)
				}
			})
		})
	}
}

// TestWithRetryJitterBounds checks, with the real random source, that
// every wait lies within its ceiling.
func TestWithRetryJitterBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 50 {
			inner := &flakyEmbedder{errs: repeat(&apiError{status: 500}, 5)}
			r := WithRetry(inner, RetryPolicy{Attempts: 6, Base: time.Second, Max: 5 * time.Second})
			if _, err := r.Embed(context.Background(), []string{"a"}); err != nil {
				t.Fatal(err)
			}
			for i, w := range inner.waits() {
				ceil := min(5*time.Second, time.Second<<i)
				if w < 0 || w > ceil {
					t.Fatalf("wait %d = %v, outside [0, %v]", i, w, ceil)
				}
			}
		}
	})
}

func TestWithRetryContext(t *testing.T) {
	busy := &apiError{status: 503, after: time.Hour}
	t.Run("cancelled during the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			inner := &flakyEmbedder{errs: repeat(busy, 10)}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			start := time.Now()
			_, err := WithRetry(inner, RetryPolicy{}).Embed(ctx, []string{"a"})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want context.DeadlineExceeded", err)
			}
			var ae *apiError
			if !errors.As(err, &ae) {
				t.Errorf("err = %v does not carry the embedder's last error", err)
			}
			if d := time.Since(start); d != 90*time.Second {
				t.Errorf("returned after %v, want at the deadline (90s)", d)
			}
			if len(inner.calls) != 1 {
				t.Errorf("%d calls, want 1", len(inner.calls))
			}
		})
	})
	t.Run("done before the first call", func(t *testing.T) {
		inner := &flakyEmbedder{errs: []error{context.Canceled}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := WithRetry(inner, RetryPolicy{}).Embed(ctx, []string{"a"})
		if !errors.Is(err, context.Canceled) || len(inner.calls) != 1 {
			t.Errorf("err = %v after %d calls", err, len(inner.calls))
		}
	})
	t.Run("done after a retryable failure", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		inner := EmbedderFunc{Dims: 1, Fn: func(context.Context, []string) ([][]float32, error) {
			cancel()
			return nil, busy
		}}
		_, err := WithRetry(inner, RetryPolicy{}).Embed(ctx, []string{"a"})
		if err != busy {
			t.Errorf("err = %v, want the embedder's error without a wait", err)
		}
	})
}

func TestWithRetryEdges(t *testing.T) {
	if _, err := WithRetry(nil, RetryPolicy{}).Embed(context.Background(), nil); !errors.Is(err, ErrNilEmbedder) {
		t.Errorf("nil embedder: err = %v", err)
	}
	if d := WithRetry(nil, RetryPolicy{}).Dimensions(); d != 0 {
		t.Errorf("nil embedder: Dimensions = %d", d)
	}
	want := RetryPolicy{Attempts: defaultRetryAttempts, Base: defaultRetryBase, Max: defaultRetryMax}
	if got := WithRetry(nil, RetryPolicy{Base: -1}).policy; got != want {
		t.Errorf("Policy = %+v, want %+v", got, want)
	}
	r := WithRetry(newHash(t, HashOptions{Dimensions: 16}), RetryPolicy{})
	if r.Dimensions() != 16 {
		t.Errorf("Dimensions = %d", r.Dimensions())
	}
	if th, ok := SuggestThreshold(Checked(r)); !ok || th != hashSuggestedThreshold {
		t.Errorf("SuggestThreshold through Checked and WithRetry = %v, %v", th, ok)
	}
	// Ceilings stay in range for any attempt number, however large.
	r = WithRetry(nil, RetryPolicy{Base: time.Hour, Max: time.Duration(1<<63 - 1)})
	r.jitter = maxJitter
	for _, k := range []int{1, 2, 30, 62, 63, 64, 1000} {
		if d := r.backoff(k); d <= 0 || d > r.policy.Max {
			t.Errorf("backoff(%d) = %v", k, d)
		}
	}
}
