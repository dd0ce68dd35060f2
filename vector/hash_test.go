package vector

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

func newHash(t testing.TB, opts HashOptions) *HashEmbedder {
	t.Helper()
	e, err := NewHashEmbedder(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func sim(t testing.TB, e *HashEmbedder, a, b string) float64 {
	t.Helper()
	d, err := Dot(e.embedOne(a), e.embedOne(b))
	if err != nil {
		t.Fatal(err)
	}
	return float64(d)
}

func TestHashEmbedderCloser(t *testing.T) {
	e := newHash(t, HashOptions{})
	tests := []struct {
		name          string
		query         string
		closer, other string
	}{
		{
			name:   "fungicide for grapes beats herbicide for soy",
			query:  "fungicida para videira",
			closer: "Fungicida sistêmico indicado para o controle do míldio na videira (uva).",
			other:  "Herbicida seletivo para o controle de plantas daninhas na cultura da soja.",
		},
		{
			name:   "plural query finds singular text",
			query:  "fungicidas",
			closer: "fungicida de contato",
			other:  "herbicida de contato",
		},
		{
			name:   "accents and case do not matter",
			query:  "CAFÉ irrigação",
			closer: "cafe com irrigacao por gotejamento",
			other:  "milho em sequeiro",
		},
		{
			name:   "typo still shares n-grams",
			query:  "insetisida soja",
			closer: "inseticida para soja",
			other:  "adubo foliar para milho",
		},
		{
			name:   "stopwords carry no weight",
			query:  "adubo para o milho",
			closer: "adubo nitrogenado milho",
			other:  "herbicida para o arroz",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			near, far := sim(t, e, tt.query, tt.closer), sim(t, e, tt.query, tt.other)
			if near <= far {
				t.Errorf("sim(closer) = %.3f <= sim(other) = %.3f", near, far)
			}
		})
	}
}

func TestHashEmbedderVectors(t *testing.T) {
	e := newHash(t, HashOptions{})
	for _, text := range []string{
		"fungicida para videira",
		"",
		"   ",
		"???!!!",
		"de para o a",
		"Cafe\u0301 e\u0301 bom",
		"\xff\xfe invalid utf8",
		"一些中文文本",
	} {
		t.Run(text, func(t *testing.T) {
			v := e.embedOne(text)
			if len(v) != DefaultDimensions {
				t.Fatalf("len = %d, want %d", len(v), DefaultDimensions)
			}
			if n := l2Norm(v); math.Abs(n-1) > 1e-5 {
				t.Errorf("norm = %v, want 1", n)
			}
			if err := checkFinite(v); err != nil {
				t.Error(err)
			}
			if w := e.embedOne(text); !slices.Equal(v, w) {
				t.Error("not deterministic")
			}
		})
	}
}

func TestHashEmbedderDistinguishesDegenerateTexts(t *testing.T) {
	e := newHash(t, HashOptions{})
	// Stopword-only and punctuation-only texts are embedded from what they
	// have, so they still differ from each other.
	if s := sim(t, e, "de para", "com sem"); s > 0.5 {
		t.Errorf("two stopword-only texts have similarity %.3f", s)
	}
	if s := sim(t, e, "???", "!!!"); s > 0.5 {
		t.Errorf("two punctuation-only texts have similarity %.3f", s)
	}
	if s := sim(t, e, "Café", "cafe\u0301"); math.Abs(s-1) > 1e-6 {
		t.Errorf("NFC and NFD forms differ: similarity %.6f", s)
	}
}

func TestHashEmbedderEmbed(t *testing.T) {
	e := newHash(t, HashOptions{Dimensions: 64})
	texts := []string{"uva", "soja", "uva"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got[0]) != 64 || e.Dimensions() != 64 {
		t.Fatalf("got %d vectors of %d, Dimensions %d", len(got), len(got[0]), e.Dimensions())
	}
	if !slices.Equal(got[0], got[2]) || slices.Equal(got[0], got[1]) {
		t.Error("same texts must give equal vectors, different texts different ones")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Embed err = %v", err)
	}
}

func TestNewHashEmbedderOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    HashOptions
		wantErr bool
		model   string
	}{
		{name: "zero value", opts: HashOptions{}, model: "hybridrag-hash-v1-g35"},
		{name: "negative dims", opts: HashOptions{Dimensions: -1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewHashEmbedder(tt.opts)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidOptions) {
					t.Fatalf("err = %v, want ErrInvalidOptions", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Model() != tt.model {
				t.Errorf("Model = %q, want %q", e.Model(), tt.model)
			}
		})
	}
}

func TestHashEmbedderCustomStopwords(t *testing.T) {
	// With "videira" declared a stopword the query keeps only "fungicida".
	e := newHash(t, HashOptions{})
	e.stopword = func(w string) bool { return w == "videira" }
	if s := sim(t, e, "fungicida videira", "fungicida"); math.Abs(s-1) > 1e-6 {
		t.Errorf("similarity = %.4f, want 1", s)
	}
}

func BenchmarkHashEmbedder(b *testing.B) {
	e := newHash(b, HashOptions{})
	text := "Fungicida sistêmico do grupo químico triazol, indicado para o controle de ferrugem, " +
		"oídio e míldio nas culturas de uva, soja, café e trigo. Aplicar via pulverização foliar."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = e.embedOne(text)
	}
}
