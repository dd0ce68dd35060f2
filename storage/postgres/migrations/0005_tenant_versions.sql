-- 0005_tenant_versions: a change marker per tenant (storage.Store.Version).
--
-- tenant_versions holds one row per tenant ever written; its version goes
-- up by one for every transaction that inserts, updates or deletes any of
-- the tenant's records, attached files or chunks, whatever the statement
-- (the stores' writes, a cascade from a deleted owner, a bulk load, SQL
-- run by hand). A reader polls it with one primary-key lookup to learn
-- whether what it derived from the records (rag's vocabularies, IDF
-- weights, calibration samples) is stale.
--
-- The triggers are deferred constraint triggers, so the row is bumped at
-- commit: its lock is held only while the transaction commits, and
-- concurrent writers of one tenant do not wait for each other's whole
-- transactions. A transaction bumps each tenant once: the first of its
-- row events per tenant updates the row and records the tenant in a
-- transaction-local setting that the later events check. The word index
-- triggers of 0003 are not reused: they fire only when the search text or
-- status changes, and bulk loads disable them.
--
-- Template fields: as in 0001_init.sql (.S, .ChunkTables).

CREATE TABLE {{.S}}.tenant_versions (
    tenant_id text COLLATE "C" PRIMARY KEY,
    version   bigint NOT NULL
);

CREATE FUNCTION {{.S}}.bump_tenant_version() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    t   text := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
    key text := TG_TABLE_SCHEMA || ':' || t;
BEGIN
    IF current_setting('hybridrag.bumped_tenant', true) IS NOT DISTINCT FROM key THEN
        RETURN NULL;
    END IF;
    INSERT INTO {{.S}}.tenant_versions AS v (tenant_id, version) VALUES (t, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1;
    PERFORM set_config('hybridrag.bumped_tenant', key, true);
    RETURN NULL;
END
$f$;

CREATE CONSTRAINT TRIGGER items_bump_version AFTER INSERT OR UPDATE OR DELETE ON {{.S}}.items
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {{.S}}.bump_tenant_version();
CREATE CONSTRAINT TRIGGER item_files_bump_version AFTER INSERT OR UPDATE OR DELETE ON {{.S}}.item_files
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {{.S}}.bump_tenant_version();
CREATE CONSTRAINT TRIGGER faqs_bump_version AFTER INSERT OR UPDATE OR DELETE ON {{.S}}.faqs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {{.S}}.bump_tenant_version();
CREATE CONSTRAINT TRIGGER documents_bump_version AFTER INSERT OR UPDATE OR DELETE ON {{.S}}.documents
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {{.S}}.bump_tenant_version();
{{range $t := .ChunkTables}}
CREATE CONSTRAINT TRIGGER {{$t.Table}}_bump_version AFTER INSERT OR UPDATE OR DELETE ON {{$.S}}.{{$t.Table}}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {{$.S}}.bump_tenant_version();
{{end}}
