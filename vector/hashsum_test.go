package vector

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// addFeaturesSorted is the plain form of addFeatures: sort every feature by
// hash, then add each group of equal hashes in that order.
func addFeaturesSorted(v []float32, f []feature, _ *featureBuf) {
	f = slices.Clone(f)
	slices.SortStableFunc(f, func(a, b feature) int { return cmp.Compare(a.hash, b.hash) })
	for i := 0; i < len(f); {
		j := i + 1
		for j < len(f) && f[j].hash == f[i].hash {
			j++
		}
		w := f[i].weight * (1 + math.Log(float64(j-i)))
		if f[i].hash>>63 == 1 {
			w = -w
		}
		v[int(f[i].hash%uint64(len(v)))] += float32(w)
		i = j
	}
}

func TestAddFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dims := range []int{1, 7, 256, 1536} {
		for _, n := range []int{0, 1, 2, 100, 5000} {
			for _, shape := range []string{"random", "repeated", "colliding"} {
				t.Run(fmt.Sprintf("dims=%d/n=%d/%s", dims, n, shape), func(t *testing.T) {
					f := make([]feature, n)
					for i := range f {
						h := rng.Uint64()
						switch shape {
						case "repeated":
							h %= 13
						case "colliding": // few buckets, many distinct hashes each
							h = h&^0xfff | uint64(rng.IntN(3))
						}
						f[i] = feature{h, []float64{hashWordWeight, hashStemWeight, hashGramWeight}[rng.IntN(3)]}
					}
					got := make([]float32, dims)
					want := make([]float32, dims)
					addFeatures(got, slices.Clone(f), &featureBuf{})
					addFeaturesSorted(want, f, nil)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("bucket %d: %v, want %v", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
}

// TestHashEmbedderSummationOrder checks that the embeddings are bit for bit
// those of the plain summation, for texts from one word to long ones.
func TestHashEmbedderSummationOrder(t *testing.T) {
	words := strings.Fields("fungicida sistêmico triazol ferrugem oídio míldio uva soja café trigo aplicar " +
		"pulverização foliar dose intervalo segurança bula cultura praga lagarta percevejo herbicida 2,4-D")
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dims := range []int{64, 1536} {
		e := newHash(t, HashOptions{Dimensions: dims})
		for n := 0; n <= 400; n += 9 {
			var b strings.Builder
			for range n {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			text := b.String()
			if got, want := e.embedOne(text), e.embedText(text, addFeaturesSorted); !slices.Equal(got, want) {
				t.Fatalf("dims %d, %d words: the embedding differs from the plain summation", dims, n)
			}
		}
	}
}
