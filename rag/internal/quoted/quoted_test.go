package quoted

import (
	"context"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

func TestTurnTravelsInContext(t *testing.T) {
	if From(context.Background()) != nil {
		t.Fatal("a bare context carries a Turn")
	}
	var none *Turn
	if _, ok := none.Get(storage.OwnerRef{Kind: storage.KindItem, ID: "p"}); ok {
		t.Fatal("a nil Turn has a record")
	}
	tt := &Turn{}
	ref := storage.OwnerRef{Kind: storage.KindDocument, ID: "d"}
	tt.Add(ref, Record{Passages: []string{"A garantia é de 12 meses."}, Cite: "Manual › Garantia"})
	got, ok := From(With(context.Background(), tt)).Get(ref)
	if !ok || got.Cite != "Manual › Garantia" || !slices.Equal(got.Passages, []string{"A garantia é de 12 meses."}) {
		t.Errorf("Get = %+v, %v", got, ok)
	}
	if _, ok := tt.Get(storage.OwnerRef{Kind: storage.KindItem, ID: "d"}); ok {
		t.Error("a record of another kind with the same ID was found")
	}
}
