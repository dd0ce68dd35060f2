package vector

import (
	"fmt"
)

// AggregateMode selects how the chunk similarities of one owner become the
// owner's score. Similarity is -Distance (the inner product).
type AggregateMode int

const (
	// AggregateMax scores an owner by its best chunk, so a long document
	// is not favoured over a short one for its length (the default).
	AggregateMax AggregateMode = iota
	// AggregateSum adds the similarities of all matched chunks, favouring
	// owners with much matching text.
	AggregateSum
	// AggregateTopKMean averages the MeanTopK best similarities (fewer when
	// the owner has fewer matched chunks), rewarding owners that match in
	// several places without letting long documents win by size alone.
	AggregateTopKMean
)

// String returns "max", "sum" or "topk-mean".
func (m AggregateMode) String() string {
	switch m {
	case AggregateMax:
		return "max"
	case AggregateSum:
		return "sum"
	case AggregateTopKMean:
		return "topk-mean"
	}
	return fmt.Sprintf("AggregateMode(%d)", int(m))
}

// ParseAggregateMode parses the names printed by String. It returns
// ErrInvalidOptions (wrapped) for any other name.
func ParseAggregateMode(s string) (AggregateMode, error) {
	switch s {
	case "max", "":
		return AggregateMax, nil
	case "sum":
		return AggregateSum, nil
	case "topk-mean", "top-k-mean", "mean":
		return AggregateTopKMean, nil
	}
	return 0, fmt.Errorf("vector: aggregate mode %q: %w", s, ErrInvalidOptions)
}
