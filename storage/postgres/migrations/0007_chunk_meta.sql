-- 0007_chunk_meta: a narrow table of chunk metadata per owner kind, which
-- a filtered lexical search reads instead of the wide chunk rows.
--
-- <kind>_chunk_meta holds one row per chunk and metadata key: the chunk's
-- identity (tenant_id, owner_id, source, seq; the owner kind is the
-- table's) and the key with its normalized value, as in metadata_norm
-- (0004), which chunk filters compare with. A chunk filter key=value is
-- a row with that key and value. short is the value when it has at most
-- 64 characters (256 bytes in any server encoding), NULL otherwise
-- (values may be longer than a btree entry):
-- the index on (tenant_id, key, short) including owner_id answers a
-- filter on a short value from the index alone (index-only scans once
-- vacuum has marked the pages all-visible), and the partial index on the
-- md5 of the long values finds those (the value itself is compared too).
-- The rows are about 80 bytes where a chunk row holds its embedding and
-- content (6 to 7 kB at 1536 dimensions, one row per page), so a filter's
-- chunks are read from a few index pages instead of one heap page each.
--
-- Statement triggers on each chunk table keep it in sync in the
-- transaction of every insert, update and delete of chunks, whatever the
-- statement (the stores' writes, COPY, a cascade from a deleted owner,
-- SQL run by hand; not TRUNCATE), from metadata_norm. They stay enabled
-- during bulk loads.
--
-- Existing chunks are copied here, before the indexes are built.
--
-- Template fields: as in 0001_init.sql (.S, .ChunkTables with .Meta).
{{range $t := .ChunkTables}}
CREATE TABLE {{$.S}}.{{$t.Meta}} (
    tenant_id text COLLATE "C" NOT NULL,
    owner_id  text COLLATE "C" NOT NULL,
    source    text COLLATE "C" NOT NULL,
    seq       integer NOT NULL,
    key       text COLLATE "C" NOT NULL,
    value     text COLLATE "C" NOT NULL,
    short     text COLLATE "C" GENERATED ALWAYS AS (CASE WHEN char_length(value) <= 64 THEN value END) STORED
);
INSERT INTO {{$.S}}.{{$t.Meta}} (tenant_id, owner_id, source, seq, key, value)
SELECT c.tenant_id, c.owner_id, c.source, c.seq, m.key, m.value
FROM {{$.S}}.{{$t.Table}} c CROSS JOIN LATERAL jsonb_each_text(c.metadata_norm) AS m(key, value)
WHERE c.metadata_norm IS NOT NULL;
ALTER TABLE {{$.S}}.{{$t.Meta}} ADD PRIMARY KEY (tenant_id, owner_id, source, seq, key);
CREATE INDEX {{$t.Meta}}_value ON {{$.S}}.{{$t.Meta}} (tenant_id, key, short) INCLUDE (owner_id);
CREATE INDEX {{$t.Meta}}_long ON {{$.S}}.{{$t.Meta}} (tenant_id, key, md5(value)) WHERE short IS NULL;

CREATE FUNCTION {{$.S}}.{{$t.Meta}}_sync() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        DELETE FROM {{$.S}}.{{$t.Meta}} m USING old_chunks o
        WHERE m.tenant_id = o.tenant_id AND m.owner_id = o.owner_id AND m.source = o.source AND m.seq = o.seq
          AND o.metadata_norm IS NOT NULL;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO {{$.S}}.{{$t.Meta}} (tenant_id, owner_id, source, seq, key, value)
        SELECT n.tenant_id, n.owner_id, n.source, n.seq, m.key, m.value
        FROM new_chunks n CROSS JOIN LATERAL jsonb_each_text(n.metadata_norm) AS m(key, value)
        WHERE n.metadata_norm IS NOT NULL;
    END IF;
    RETURN NULL;
END
$f$;
CREATE TRIGGER {{$t.Table}}_meta_insert AFTER INSERT ON {{$.S}}.{{$t.Table}}
    REFERENCING NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION {{$.S}}.{{$t.Meta}}_sync();
CREATE TRIGGER {{$t.Table}}_meta_update AFTER UPDATE ON {{$.S}}.{{$t.Table}}
    REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION {{$.S}}.{{$t.Meta}}_sync();
CREATE TRIGGER {{$t.Table}}_meta_delete AFTER DELETE ON {{$.S}}.{{$t.Table}}
    REFERENCING OLD TABLE AS old_chunks FOR EACH STATEMENT EXECUTE FUNCTION {{$.S}}.{{$t.Meta}}_sync();
{{end}}
