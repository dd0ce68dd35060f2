package load

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// TestRecordStatus checks the "status" and "active" keys, read the same
// way for catalog items, FAQs and documents.
func TestRecordStatus(t *testing.T) {
	ctx := context.Background()
	kinds := []struct {
		name   string
		fields string // the record's other fields
		read   func(in string) (storage.Status, error)
	}{
		{"item", `"id":"x","name":"A"`, func(in string) (storage.Status, error) {
			recs, err := readCatalogJSONL(ctx, strings.NewReader(in), "f.jsonl", nil)
			if len(recs) == 0 {
				return "", err
			}
			return recs[0].Status, err
		}},
		{"faq", `"id":"x","question":"Q?","answer":"A."`, func(in string) (storage.Status, error) {
			recs, err := readFAQsJSON(ctx, strings.NewReader("["+in+"]"), "f.json", nil)
			if len(recs) == 0 {
				return "", err
			}
			return recs[0].Status, err
		}},
		{"document", `"id":"x","content":"Texto."`, func(in string) (storage.Status, error) {
			recs, err := ReadDocumentsJSONL(ctx, strings.NewReader(in), "f.jsonl", nil)
			if len(recs) == 0 {
				return "", err
			}
			return recs[0].Status, err
		}},
	}
	tests := []struct {
		name, status string
		want         storage.Status
		badField     string
	}{
		{"neither", ``, storage.StatusActive, ""},
		{"empty status", `,"status":""`, storage.StatusActive, ""},
		{"status ativo", `,"status":"ativo"`, storage.StatusActive, ""},
		{"status Inativo", `,"status":" Inativo "`, storage.StatusInactive, ""},
		{"active false", `,"active":false`, storage.StatusInactive, ""},
		{"active não", `,"active":"não"`, storage.StatusInactive, ""},
		{"active null", `,"active":null`, storage.StatusActive, ""},
		{"both agree", `,"status":"inactive","active":false`, storage.StatusInactive, ""},
		{"both disagree", `,"status":"inactive","active":"sim"`, "", "active"},
		{"unknown status", `,"status":"talvez"`, "", "status"},
		{"status is a boolean spelling", `,"status":"sim"`, "", "status"},
		{"unknown active", `,"active":"talvez"`, "", "active"},
		{"status object", `,"status":{}`, "", "status"},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(k.name+"/"+tt.name, func(t *testing.T) {
				got, err := k.read("{" + k.fields + tt.status + "}")
				if tt.badField == "" {
					if err != nil || got != tt.want {
						t.Fatalf("status %q, err %v; want %q", got, err, tt.want)
					}
					return
				}
				res := recordErrors(t, err)
				if len(res) != 1 || res[0].Field != tt.badField || !errors.Is(res[0], storage.ErrInvalidRecord) {
					t.Fatalf("err = %v; want one record error on %s wrapping ErrInvalidRecord", err, tt.badField)
				}
			})
		}
	}
}
