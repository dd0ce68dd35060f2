package load_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

// TestKeysDifferingInCase: two keys that differ only in case used to give
// either value, by map order; they are now a syntax error on that line.
func TestKeysDifferingInCase(t *testing.T) {
	for range 20 {
		items, err := load.ReadCatalog(context.Background(), strings.NewReader(`{"Id":"a","ID":"b","name":"n"}`+"\n"), "x.jsonl", nil)
		if len(items) != 0 || !errors.Is(err, load.ErrSyntax) || !strings.Contains(err.Error(), `"ID" and "Id" differ only in case`) {
			t.Fatalf("items %+v, err %v; want no item and a syntax error naming both keys", items, err)
		}
	}
}

// TestMetadataKeysCollide: metadata keys that become the same key once
// cleaned used to keep either value; they are now an invalid record.
func TestMetadataKeysCollide(t *testing.T) {
	for range 20 {
		items, err := load.ReadCatalog(context.Background(), strings.NewReader(`{"id":"a","name":"n","metadata":{"k":"1"," k":"2"}}`+"\n"), "x.jsonl", nil)
		if len(items) != 0 || !errors.Is(err, storage.ErrInvalidRecord) || !strings.Contains(err.Error(), `the same key "k"`) {
			t.Fatalf("items %+v, err %v; want no item and an invalid-record error", items, err)
		}
	}
}

// TestDocumentCleaningIsStable: cleaning a cleaned document changes
// nothing, so its content hash is stable across a reload (leading BOMs,
// also behind a NUL, used to lose one per pass).
func TestDocumentCleaningIsStable(t *testing.T) {
	for _, content := range []string{"\ufeff\ufeffx", "\u0000\ufeffx", "\ufeff \ufeffx"} {
		line := `{"id":"d","title":"T","content":` + quote(content) + "}\n"
		docs, err := load.ReadDocumentsJSONL(context.Background(), strings.NewReader(line), "d.jsonl", nil)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%q: %v, %d docs", content, err, len(docs))
		}
		again, err := load.ReadDocumentsJSONL(context.Background(), strings.NewReader(`{"id":"d","title":"T","content":`+quote(docs[0].Content)+"}\n"), "d.jsonl", nil)
		if err != nil || len(again) != 1 || again[0].Content != docs[0].Content || again[0].ContentHash != docs[0].ContentHash {
			t.Errorf("%q: first pass %q, second pass %+v (err %v)", content, docs[0].Content, again, err)
		}
	}
}

// quote is a JSON string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0xfeff:
			b.WriteString(`\u` + hex4(r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}
