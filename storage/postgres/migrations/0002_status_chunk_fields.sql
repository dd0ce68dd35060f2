-- 0002_status_chunk_fields: documents get the active flag items and FAQs
-- have (storage.Document.Status), and every chunk table gets columns for
-- storage.Chunk's Start, HeadingPath and File.
--
-- Chunks written before this migration carried those as metadata keys set
-- by rag's indexer: "start" (a decimal byte offset), "heading_path" (the
-- headings joined by ' › ') and "file". They are moved into the new columns
-- and dropped from metadata; a "start" that is not a decimal number stays
-- in metadata. storage/memory upgrades version 1 snapshots the same way.
--
-- The rewrite is not a HOT update (a row with an inline vector fills its
-- page), so updating rows under the HNSW index would insert every row into
-- the graph again; the index is dropped and rebuilt around it instead
-- (5,000 1536-dimension chunks: 24 s in place, 6 s with the rebuild). On a
-- large database, raise maintenance_work_mem for the Migrate session.
--
-- Template fields: as in 0001_init.sql (.S, .HNSW, .ChunkTables).

ALTER TABLE {{.S}}.documents ADD COLUMN active boolean NOT NULL DEFAULT true;
DROP INDEX {{.S}}.documents_recent;
CREATE INDEX documents_recent ON {{.S}}.documents (tenant_id, created_at DESC, id) WHERE active;
{{range $t := .ChunkTables}}
{{- if $.HNSW}}
DROP INDEX IF EXISTS {{$.S}}.{{$t.Table}}_embedding_hnsw;
{{- end}}
ALTER TABLE {{$.S}}.{{$t.Table}}
    ADD COLUMN start_offset bigint NOT NULL DEFAULT 0,
    ADD COLUMN heading_path text[] NOT NULL DEFAULT '{}',
    ADD COLUMN file_name    text NOT NULL DEFAULT '';
UPDATE {{$.S}}.{{$t.Table}} SET
    start_offset = CASE WHEN metadata->>'start' ~ '^[0-9]{1,18}$' THEN (metadata->>'start')::bigint ELSE 0 END,
    heading_path = CASE WHEN coalesce(metadata->>'heading_path', '') <> ''
        THEN string_to_array(metadata->>'heading_path', ' › ') ELSE '{}' END,
    file_name    = coalesce(metadata->>'file', ''),
    metadata     = CASE WHEN metadata->>'start' ~ '^[0-9]{1,18}$' THEN metadata - 'start' ELSE metadata END
        - 'heading_path' - 'file'
WHERE metadata ?| ARRAY['start', 'heading_path', 'file'];
{{- if $.HNSW}}
CREATE INDEX {{$t.Table}}_embedding_hnsw ON {{$.S}}.{{$t.Table}}
    USING hnsw (embedding vector_ip_ops) WITH (m = 16, ef_construction = 64);
{{- end}}
{{end}}
