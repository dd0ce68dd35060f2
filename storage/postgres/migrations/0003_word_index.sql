-- 0003_word_index: an inverted index of the words of every active owner's
-- search text, which lexical search reads instead of scanning search_text.
--
-- A word is a maximal run of characters other than the ASCII characters
-- that are not letters or digits (search_words; the memory store splits
-- the same way). A term with no such separator is contained in a text
-- exactly when it is contained in one of the text's words, so its matches
-- are the postings of the dictionary words containing it.
--
-- Per owner kind (items, faqs, documents):
--   <kind>_words     the tenant's dictionary: each distinct word once, with
--                    a surrogate id; a btree_gin + pg_trgm index on
--                    (tenant_id, word) finds the words containing a string
--                    (LIKE '%term%').
--   <kind>_postings  (tenant_id, word_id, created_at, owner_id) for every
--                    active owner and every distinct word of its search
--                    text, created_at being the owner's; its unique index
--                    in that order (created_at descending) lets a search
--                    walk a word's owners newest first, probe whether an
--                    owner holds a word, and rank from the index alone.
--
-- A trigger on each owner table maintains the postings in the transaction
-- of every insert, update (of search_text, active or created_at) and
-- delete, whatever the statement. Dictionary words are never deleted: a
-- word no active owner holds any more has no postings and matches nothing.
--
-- Existing rows are indexed here (the indexes are built after the rows are
-- copied, which is faster than maintaining them row by row).
--
-- Template fields: .S and .WordTables (Owner, Words, Postings).

-- The trigram indexes on search_text served the scans this index
-- replaces; nothing reads them any more, and every write paid for them.
DROP INDEX IF EXISTS {{.S}}.items_search_trgm;
DROP INDEX IF EXISTS {{.S}}.faqs_search_trgm;
DROP INDEX IF EXISTS {{.S}}.documents_search_trgm;

CREATE FUNCTION {{.S}}.search_words(t text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $f$ SELECT DISTINCT w FROM regexp_split_to_table(t, E'[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+') AS w WHERE w <> '' $f$;
{{range $t := .WordTables}}
CREATE TABLE {{$.S}}.{{$t.Words}} (
    tenant_id text COLLATE "C" NOT NULL,
    word      text COLLATE "C" NOT NULL,
    id        bigint GENERATED ALWAYS AS IDENTITY
);
CREATE TABLE {{$.S}}.{{$t.Postings}} (
    tenant_id  text COLLATE "C" NOT NULL,
    word_id    bigint NOT NULL,
    owner_id   text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL
);

INSERT INTO {{$.S}}.{{$t.Words}} (tenant_id, word)
SELECT DISTINCT o.tenant_id, w.w
FROM {{$.S}}.{{$t.Owner}} o CROSS JOIN LATERAL {{$.S}}.search_words(o.search_text) AS w(w)
WHERE o.active
ORDER BY 1, 2;
ALTER TABLE {{$.S}}.{{$t.Words}} ADD PRIMARY KEY (tenant_id, word);
INSERT INTO {{$.S}}.{{$t.Postings}} (tenant_id, word_id, owner_id, created_at)
SELECT o.tenant_id, d.id, o.id, o.created_at
FROM {{$.S}}.{{$t.Owner}} o CROSS JOIN LATERAL {{$.S}}.search_words(o.search_text) AS w(w)
JOIN {{$.S}}.{{$t.Words}} d ON d.tenant_id = o.tenant_id AND d.word = w.w
WHERE o.active
ORDER BY 1, 2, 4 DESC, 3;
CREATE UNIQUE INDEX {{$t.Postings}}_key ON {{$.S}}.{{$t.Postings}} (tenant_id, word_id, created_at DESC, owner_id);
CREATE INDEX {{$t.Words}}_trgm ON {{$.S}}.{{$t.Words}} USING gin (tenant_id, word gin_trgm_ops);

CREATE FUNCTION {{$.S}}.{{$t.Owner}}_index_words() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.active THEN
        DELETE FROM {{$.S}}.{{$t.Postings}} p
        WHERE p.tenant_id = OLD.tenant_id AND p.created_at = OLD.created_at AND p.owner_id = OLD.id
          AND p.word_id IN (SELECT d.id FROM {{$.S}}.{{$t.Words}} d
                            WHERE d.tenant_id = OLD.tenant_id AND d.word IN (SELECT {{$.S}}.search_words(OLD.search_text)));
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.active THEN
        -- Words are inserted in order; writers insert a batch's new words
        -- beforehand, in one sorted statement, so that concurrent
        -- transactions do not wait for each other's words here.
        INSERT INTO {{$.S}}.{{$t.Words}} (tenant_id, word)
        SELECT NEW.tenant_id, w FROM {{$.S}}.search_words(NEW.search_text) AS w ORDER BY w
        ON CONFLICT DO NOTHING;
        INSERT INTO {{$.S}}.{{$t.Postings}} (tenant_id, word_id, owner_id, created_at)
        SELECT NEW.tenant_id, d.id, NEW.id, NEW.created_at FROM {{$.S}}.{{$t.Words}} d
        WHERE d.tenant_id = NEW.tenant_id AND d.word IN (SELECT {{$.S}}.search_words(NEW.search_text));
    END IF;
    RETURN NULL;
END
$f$;
CREATE TRIGGER {{$t.Owner}}_index_words AFTER INSERT OR DELETE ON {{$.S}}.{{$t.Owner}}
    FOR EACH ROW EXECUTE FUNCTION {{$.S}}.{{$t.Owner}}_index_words();
CREATE TRIGGER {{$t.Owner}}_reindex_words AFTER UPDATE ON {{$.S}}.{{$t.Owner}}
    FOR EACH ROW WHEN (OLD.search_text IS DISTINCT FROM NEW.search_text OR OLD.active IS DISTINCT FROM NEW.active
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.id IS DISTINCT FROM NEW.id
        OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
    EXECUTE FUNCTION {{$.S}}.{{$t.Owner}}_index_words();
{{end}}
