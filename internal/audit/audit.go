// Package audit writes the tool-payload audit record for the rag
// packages: which tool ran with which arguments, how many results it gave
// and a preview of what the model was shown.
package audit

import (
	"context"
	"log/slog"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/textutil"
)

// DefaultPreview is the number of payload characters logged when the
// caller gives none.
const DefaultPreview = 800

// LogToolPayload writes the audit record for callers outside the
// planned pipeline (agentic tools, catalog assist): the same record as
// Pipeline's audit, with the arguments given as JSON text. Nothing is
// logged without a logger.
func LogToolPayload(ctx context.Context, logger *slog.Logger, previewChars int, tool, args string, count int, payload string) {
	if logger == nil {
		return
	}
	if previewChars <= 0 {
		previewChars = DefaultPreview
	}
	preview := payload
	if utf8.RuneCountInString(preview) > previewChars {
		preview = textutil.TruncateRunes(preview, previewChars-1) + "…"
	}
	logger.LogAttrs(ctx, slog.LevelInfo, "rag tool payload",
		slog.String("tool", tool),
		slog.String("arguments", args),
		slog.Int("results", count),
		slog.String("payload", preview))
}
