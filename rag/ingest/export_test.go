package ingest

// ItemChunks is itemChunks, for the tests of package ingest_test.
var ItemChunks = itemChunks
