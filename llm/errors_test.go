package llm_test

import (
	"fmt"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/vector"
)

// TestAPIErrorRetryability: vector's retry helpers read a provider error's
// Retryable field, through wrapping.
func TestAPIErrorRetryability(t *testing.T) {
	for _, tc := range []struct {
		err  *llm.APIError
		want bool
	}{
		{&llm.APIError{StatusCode: 429, Retryable: true}, true},
		{&llm.APIError{StatusCode: 400}, false},
	} {
		if got, _ := vector.IsRetryable(fmt.Errorf("embed: %w", tc.err)); got != tc.want {
			t.Errorf("IsRetryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
