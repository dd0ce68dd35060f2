-- 0004_chunk_metadata_norm: chunk metadata in the form chunk filters
-- compare (storage.ChunkFilter), indexed, so that stores evaluate the
-- filters over every chunk of a tenant instead of over a search's best
-- candidates.
--
-- metadata_norm is the chunk's metadata with every value normalized
-- (lexical.Normalize, computed by the writer in Go), or NULL when the
-- metadata is empty; a filter key=value is the containment
-- metadata_norm @> '{"key": "value"}', which the GIN index on
-- (tenant_id, metadata_norm) answers (btree_gin for the tenant).
--
-- Normalization is Go code, so existing rows are backfilled by Migrate
-- right after this script, in the same transaction (only the rows whose
-- metadata is not empty; the others keep NULL). The column is added
-- without a default, which changes no row.
--
-- Template fields: as in 0001_init.sql (.S, .ChunkTables).
{{range $t := .ChunkTables}}
ALTER TABLE {{$.S}}.{{$t.Table}} ADD COLUMN metadata_norm jsonb;
CREATE INDEX {{$t.Table}}_metadata_norm ON {{$.S}}.{{$t.Table}} USING gin (tenant_id, metadata_norm jsonb_path_ops);
{{end}}
