package memory

// Vector scans score rows with vector.DotRows (an AVX2/AVX-512 assembly
// kernel on amd64, portable Go elsewhere), which sums each row in one fixed
// order whether the row is scored alone or with its neighbours, so a row's
// score — and with the (distance, owner ID, source, seq) tie order the
// result — does not depend on GOMAXPROCS, on how the slab is sharded or on
// which neighbouring rows are filtered out.
//
// SearchChunks hands DotRows runs of consecutive eligible rows, at most
// scoreBlock at a time: long enough to amortize the call and let the
// kernel score four rows per pass, short enough for the scores to stay in
// L1 and for cancellation to be checked every ctxCheckEvery rows.
const scoreBlock = 64
