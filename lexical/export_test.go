package lexical

// Test helpers exported to package lexical_test, whose files may import
// lexical/snowball (which imports lexical) without an import cycle.
var (
	BenchQueries                 = benchQueries
	BenchRecords                 = benchRecords
	CheckMatcherMatchesReference = checkMatcherMatchesReference
)
