package postgres_test

import (
	"math"
	"math/rand/v2"
)

// Clustered synthetic geometry for the HNSW benchmarks
// (HYBRIDRAG_BENCH_GEOM=clustered). The hash embedder gives every text a
// few dozen coordinates, so a short query is nearly orthogonal to every
// text and the similarities of its neighbours are flat (BENCHMARKS.md,
// "HNSW recall against ef_search"). A real embedding model puts texts in
// topics and subtopics: a query's nearest neighbours are a handful of
// close texts, then a few hundred related ones, then the rest. This is the
// clustered shape of vector's memory-vs-chromem benchmark (Gaussian
// noise around 64 random centres), with one more level: each of the 64
// topics has 64 subtopics, and item i is
//
//	normalize(topic + 0.7·subtopic + 0.6·noise)
//
// every part a vector of independent standard normal coordinates, so two
// items of a subtopic are at cosine about 0.81, of a topic 0.54, of
// different topics 0. Queries are "doc" (an item plus noise of norm 0.3,
// at cosine about 0.96 to it: a text next to an indexed one) or "short" (a new point of a random subtopic
// with 0.9·noise: near a subtopic's ~24 items, none of them its
// duplicate). Everything is seeded: item i's vector depends on i alone.
type geometry struct {
	dims   int
	topics [][]float64 // geomTopics centres
	subs   [][]float64 // geomTopics × geomSubs centres, topic-major
}

const (
	geomTopics = 64
	geomSubs   = 64
)

func gaussian(r *rand.Rand, dims int) []float64 {
	v := make([]float64, dims)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func newGeometry(dims int) *geometry {
	g := &geometry{dims: dims}
	r := rand.New(rand.NewPCG(0x9e0, 1))
	for range geomTopics {
		g.topics = append(g.topics, gaussian(r, dims))
	}
	for range geomTopics * geomSubs {
		g.subs = append(g.subs, gaussian(r, dims))
	}
	return g
}

// point returns normalize(topic + 0.7·sub + noise·N(0, 1)) for subtopic s.
func (g *geometry) point(r *rand.Rand, s int, noise float64) []float32 {
	t, sub := g.topics[s/geomSubs], g.subs[s]
	v := make([]float32, g.dims)
	var n float64
	for i := range v {
		x := t[i] + 0.7*sub[i] + noise*r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// item returns item i's vector.
func (g *geometry) item(i int) []float32 {
	r := rand.New(rand.NewPCG(uint64(i), 3))
	return g.point(r, r.IntN(geomTopics*geomSubs), 0.6)
}

// query returns a query of kind "doc" or "short" over the first n items.
func (g *geometry) query(r *rand.Rand, kind string, n int) []float32 {
	if kind != "doc" {
		return g.point(r, r.IntN(geomTopics*geomSubs), 0.9)
	}
	v := g.item(r.IntN(n))
	var norm float64
	for i := range v {
		v[i] += float32(0.3 * r.NormFloat64() / math.Sqrt(float64(g.dims)))
		norm += float64(v[i]) * float64(v[i])
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
	return v
}
