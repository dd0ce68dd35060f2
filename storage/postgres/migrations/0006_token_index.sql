-- 0006_token_index: the spans of separated words ("l/ha", "2,4-d",
-- "cana-de-acucar") in the word index, so that a term such as "l/ha" is
-- answered from postings instead of a walk of every record.
--
-- A token is a maximal run of characters other than space and newline
-- (the only white space normalized search text holds), with the ASCII
-- separators at both of its ends trimmed, kept when a separator is left
-- inside it: "(960 g/l)." has the token "g/l", and "soja," none. A term
-- with no space whose own trimmed form (its core) holds a separator is
-- contained in a text only inside one run, and its core inside that run's
-- token, so the tokens containing the core are the only candidates, and
-- when the term is its own core ("l/ha", not "l/ha)"), they are its
-- matches. A token longer than 256 characters is kept as its pieces of 256
-- characters starting every 128: any core of up to 128 characters is
-- inside one piece (longer cores are not looked up here).
--
-- Per owner kind, <kind>_tokens is the tenant's dictionary of tokens, like
-- <kind>_words (0003), with negative IDs: their postings go in the kind's
-- <kind>_postings beside the words', with the same unique index, so that
-- every statement that walks, probes or counts postings reads either. The
-- owner table's trigger function now maintains both.
--
-- Template fields: .S and .WordTables (Owner, Words, Tokens, Postings).

-- search_tokens finds the runs with a separator inside in one pass of a
-- regular expression (3.2 s for 100k synthetic items, where splitting at
-- spaces and testing every run took 6.1 s and search_words takes 4.5 s):
-- at the first character of such a run the expression matches, and its
-- leading and trailing [^ \n]* extend the match to the whole run.
CREATE FUNCTION {{.S}}.search_tokens(t text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $f$ SELECT DISTINCT unnest(CASE WHEN length(x.c) <= 256 THEN ARRAY[x.c]
        ELSE ARRAY(SELECT substr(x.c, s, 256) FROM generate_series(1, length(x.c) - 128, 128) AS s) END)
    FROM (SELECT btrim(m[1], E'\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f !"#$%&''()*+,-./:;<=>?@[\\]^_`{|}~\x7f') AS c
          FROM regexp_matches(t, E'[^ \\n]*[^\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f][\\x01-\\x09\\x0b-\\x1f\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+[^\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f][^ \\n]*', 'g') AS m) x $f$;
{{range $t := .WordTables}}
CREATE TABLE {{$.S}}.{{$t.Tokens}} (
    tenant_id text COLLATE "C" NOT NULL,
    word      text COLLATE "C" NOT NULL,
    id        bigint GENERATED ALWAYS AS IDENTITY (MINVALUE -9223372036854775807 MAXVALUE -1 START WITH -1 INCREMENT BY -1)
);
INSERT INTO {{$.S}}.{{$t.Tokens}} (tenant_id, word)
SELECT DISTINCT o.tenant_id, w.w
FROM {{$.S}}.{{$t.Owner}} o CROSS JOIN LATERAL {{$.S}}.search_tokens(o.search_text) AS w(w)
WHERE o.active
ORDER BY 1, 2;
ALTER TABLE {{$.S}}.{{$t.Tokens}} ADD PRIMARY KEY (tenant_id, word);
CREATE INDEX {{$t.Tokens}}_trgm ON {{$.S}}.{{$t.Tokens}} USING gin (tenant_id, word gin_trgm_ops);
INSERT INTO {{$.S}}.{{$t.Postings}} (tenant_id, word_id, owner_id, created_at)
SELECT o.tenant_id, d.id, o.id, o.created_at
FROM {{$.S}}.{{$t.Owner}} o CROSS JOIN LATERAL {{$.S}}.search_tokens(o.search_text) AS w(w)
JOIN {{$.S}}.{{$t.Tokens}} d ON d.tenant_id = o.tenant_id AND d.word = w.w
WHERE o.active;

CREATE OR REPLACE FUNCTION {{$.S}}.{{$t.Owner}}_index_words() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.active THEN
        DELETE FROM {{$.S}}.{{$t.Postings}} p
        WHERE p.tenant_id = OLD.tenant_id AND p.created_at = OLD.created_at AND p.owner_id = OLD.id
          AND p.word_id IN (SELECT d.id FROM {{$.S}}.{{$t.Words}} d
                            WHERE d.tenant_id = OLD.tenant_id AND d.word IN (SELECT {{$.S}}.search_words(OLD.search_text))
                            UNION ALL
                            SELECT d.id FROM {{$.S}}.{{$t.Tokens}} d
                            WHERE d.tenant_id = OLD.tenant_id AND d.word IN (SELECT {{$.S}}.search_tokens(OLD.search_text)));
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.active THEN
        -- Words and tokens are inserted in order; writers insert a
        -- batch's new ones beforehand, in sorted statements, so that
        -- concurrent transactions do not wait for each other's here.
        INSERT INTO {{$.S}}.{{$t.Words}} (tenant_id, word)
        SELECT NEW.tenant_id, w FROM {{$.S}}.search_words(NEW.search_text) AS w ORDER BY w
        ON CONFLICT DO NOTHING;
        INSERT INTO {{$.S}}.{{$t.Tokens}} (tenant_id, word)
        SELECT NEW.tenant_id, w FROM {{$.S}}.search_tokens(NEW.search_text) AS w ORDER BY w
        ON CONFLICT DO NOTHING;
        INSERT INTO {{$.S}}.{{$t.Postings}} (tenant_id, word_id, owner_id, created_at)
        SELECT NEW.tenant_id, d.id, NEW.id, NEW.created_at FROM {{$.S}}.{{$t.Words}} d
        WHERE d.tenant_id = NEW.tenant_id AND d.word IN (SELECT {{$.S}}.search_words(NEW.search_text))
        UNION ALL
        SELECT NEW.tenant_id, d.id, NEW.id, NEW.created_at FROM {{$.S}}.{{$t.Tokens}} d
        WHERE d.tenant_id = NEW.tenant_id AND d.word IN (SELECT {{$.S}}.search_tokens(NEW.search_text));
    END IF;
    RETURN NULL;
END
$f$;
{{end}}
