package vector

import "math"

// addFeatures adds the features f into v (len(v) buckets): each distinct
// feature once, weighted by its kind and sub-linearly by its count
// (1 + ln tf), signed by its hash's top bit, into bucket hash % len(v).
//
// Within a bucket, distinct features are added in increasing hash order, so
// colliding features sum up identically on every run whatever the order of
// f. Grouping the features by bucket first (a counting sort, O(n + buckets))
// and then ordering each bucket's few features by insertion sort gives
// exactly the floating-point sums of sorting all the features by hash, and
// is several times faster for the thousands of features of a long text.
func addFeatures(v []float32, f []feature, fb *featureBuf) {
	dims := uint64(len(v))
	if cap(fb.scratch) < len(f) {
		fb.scratch = make([]feature, max(2*len(f), 1024))
	}
	if cap(fb.starts) < len(v)+1 {
		fb.starts = make([]int32, len(v)+1)
	}
	// ends[b] is first the size of bucket b-1, then the start of bucket b,
	// and after the scatter the end of bucket b.
	ends := fb.starts[:len(v)+1]
	clear(ends)
	for i := range f {
		ends[f[i].hash%dims+1]++
	}
	for b := 1; b < len(ends); b++ {
		ends[b] += ends[b-1]
	}
	byBucket := fb.scratch[:len(f)]
	for i := range f {
		b := f[i].hash % dims
		byBucket[ends[b]] = f[i]
		ends[b]++
	}
	lo := int32(0)
	for b := range v {
		seg := byBucket[lo:ends[b]]
		lo = ends[b]
		if len(seg) == 0 {
			continue
		}
		for i := 1; i < len(seg); i++ { // insertion sort by hash
			x := seg[i]
			j := i
			for j > 0 && seg[j-1].hash > x.hash {
				seg[j] = seg[j-1]
				j--
			}
			seg[j] = x
		}
		for i := 0; i < len(seg); {
			j := i + 1
			for j < len(seg) && seg[j].hash == seg[i].hash {
				j++
			}
			w := seg[i].weight * (1 + math.Log(float64(j-i)))
			if seg[i].hash>>63 == 1 {
				w = -w
			}
			v[b] += float32(w)
			i = j
		}
	}
}
