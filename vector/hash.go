package vector

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"

	"github.com/hybridrag/hybridrag/lexical"
)

// DefaultDimensions is the vector size of text-embedding-3-small (the
// default embedding model of llm/openai) and the default of
// [HashEmbedder], so the offline embedder fits a store made for it.
const DefaultDimensions = 1536

// Feature weights of the hash embedder. A word contributes its surface form
// and its stem at full weight and each of its character n-grams at
// hashGramWeight: a 9-letter word has 24 grams of 3 to 5 letters, whose
// squared weights (24 × 0.09 ≈ 2.2) roughly balance the word and the stem
// (1 + 1), so spelling variants ("fungicidas", "fungisida") stay close
// without letting shared suffixes ("-icida") dominate.
const (
	hashWordWeight = 1.0
	hashStemWeight = 1.0
	hashGramWeight = 0.3
)

// HashOptions configures a [HashEmbedder]. The zero value is valid.
type HashOptions struct {
	// Dimensions is the vector size; 0 means DefaultDimensions (1536).
	Dimensions int
}

// HashEmbedder is a deterministic, offline Embedder for development, tests
// and the embedded demo. It is NOT a semantic model: it only knows that
// texts sharing words, stems and character n-grams are similar, so
// "fungicidas para videira" is close to a text about fungicides for
// grapevines but nothing makes it close to "calda bordalesa" unless the
// words overlap. Use a real embedding model in production.
//
// Each text is folded by lexical.Normalize and split into words (runs of
// letters and digits). Every word that is not a stopword
// (lexical.DefaultStopwords: "para", "de", "the") yields three kinds of
// features: the word, its stem (lexical.Stem: plural and gender endings
// stripped) and its character n-grams (3 to 5 runes of the word padded
// with a space on each side, so prefixes and suffixes are marked). Each feature is hashed
// with 64-bit FNV-1a into one of Dimensions buckets with a sign taken from
// the hash (signed feature hashing, which keeps collisions unbiased), counts
// are weighted sub-linearly (1 + ln tf) and the vector is L2-normalized.
//
// Every vector is unit-length, so the inner product is the cosine
// similarity and the search distance (pgvector's <#>) is its negative. Texts that have only
// stopwords are embedded from those; texts with no word at all (empty,
// punctuation only) are embedded from their whole normalized form, so the
// result is always a unit vector and never the zero vector.
//
// A HashEmbedder is immutable and safe for concurrent use.
type HashEmbedder struct {
	dims     int
	minGram  int
	maxGram  int
	stopword func(string) bool
}

// NewHashEmbedder returns a HashEmbedder configured by opts. It returns
// ErrInvalidOptions (wrapped) for negative dimensions.
func NewHashEmbedder(opts HashOptions) (*HashEmbedder, error) {
	e := &HashEmbedder{dims: opts.Dimensions, minGram: 3, maxGram: 5, stopword: lexical.DefaultStopwords().Contains}
	if e.dims == 0 {
		e.dims = DefaultDimensions
	}
	if e.dims < 0 {
		return nil, fmt.Errorf("vector: hash embedder dimensions %d: %w", opts.Dimensions, ErrInvalidOptions)
	}
	return e, nil
}

// Dimensions returns the size of every vector.
func (e *HashEmbedder) Dimensions() int { return e.dims }

// Model names the embedding scheme and its n-gram range, for cache keys and
// for recording which model produced stored vectors.
func (e *HashEmbedder) Model() string {
	return fmt.Sprintf("hybridrag-hash-v1-g%d%d", e.minGram, e.maxGram)
}

// Embed returns one unit vector per text, in order. It fails only when ctx
// is done, in which case it returns ctx.Err() and no vectors.
func (e *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.embedOne(t)
	}
	return out, nil
}

// embedOne returns the unit vector of one text. It is the context-free
// core of [HashEmbedder.Embed], for tests and fixtures.
func (e *HashEmbedder) embedOne(text string) []float32 {
	return e.embedText(text, addFeatures)
}

// embedText is embedOne with the summation of the features as a
// parameter, so tests can check it against a plain implementation.
func (e *HashEmbedder) embedText(text string, add func(v []float32, f []feature, fb *featureBuf)) []float32 {
	norm := lexical.Normalize(text)
	words := splitWords(norm)
	fb := featurePool.Get().(*featureBuf)
	f := fb.f[:0]
	for _, w := range words {
		if !e.stopword(w) {
			f = e.addWord(f, w)
		}
	}
	if len(f) == 0 {
		for _, w := range words {
			f = e.addWord(f, w)
		}
	}
	if len(f) == 0 {
		f = append(f, feature{featureHash('r', norm), hashWordWeight})
	}

	v := make([]float32, e.dims)
	add(v, f, fb)
	fb.f = f
	featurePool.Put(fb)

	if n := norm2(v); n > 0 {
		inv := 1 / n
		for i, x := range v {
			v[i] = float32(float64(x) * inv)
		}
		return v
	}
	// Every feature cancelled out in its bucket (vanishingly rare): fall
	// back to a fixed one-hot vector so the result is still unit-length.
	clear(v)
	v[int(featureHash('r', norm)%uint64(e.dims))] = 1
	return v
}

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// feature is one hashed feature occurrence and the weight of its kind.
type feature struct {
	hash   uint64
	weight float64
}

// featureBuf holds the feature slice of one embedOne call and the
// scratch space of its sort, reused through featurePool.
type featureBuf struct {
	f, scratch []feature
	starts     []int32
}

var featurePool = sync.Pool{New: func() any { return &featureBuf{f: make([]feature, 0, 1024)} }}

func (e *HashEmbedder) addWord(f []feature, w string) []feature {
	f = append(f,
		feature{featureHash('w', w), hashWordWeight},
		feature{featureHash('s', lexical.Stem(w)), hashStemWeight})

	padded := " " + w + " "
	// Rune start offsets of padded, plus its length, so grams are byte
	// ranges of the string and need no allocation.
	var offs [64]int
	bounds := offs[:0]
	for i := range padded {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(padded))
	runes := len(bounds) - 1
	if runes < e.minGram {
		return append(f, feature{featureHash('g', padded), hashGramWeight})
	}
	for n := e.minGram; n <= e.maxGram && n <= runes; n++ {
		for i := 0; i+n <= runes; i++ {
			f = append(f, feature{featureHash('g', padded[bounds[i]:bounds[i+n]]), hashGramWeight})
		}
	}
	return f
}

// featureHash is 64-bit FNV-1a of the namespace byte and s, followed by the
// splitmix64 finalizer so that the low bits (the bucket) and the top bit
// (the sign) are well mixed.
func featureHash(ns byte, s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	h ^= uint64(ns)
	h *= prime
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// splitWords splits normalized text into runs of letters and digits.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
