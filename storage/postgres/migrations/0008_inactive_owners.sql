-- 0008_inactive_owners: a partial index of each owner table's inactive rows.
--
-- An unfiltered vector search keeps the chunks of active owners. It asked
-- for that by joining each chunk the HNSW scan returns to its owner's row:
-- a primary-key descent and a heap page of the wide owner row per chunk
-- (0.2 to 0.4 ms of a 1.3 to 1.8 ms search for 76 chunks at AGROFIT's
-- size). It now asks whether the owner is among the inactive ones: one
-- probe of this index, which holds only the inactive owners and is
-- empty (a single page) in a tenant whose owners are all active, the
-- usual case. Its predicate column (active) is already in the *_recent
-- indexes' predicates, so it costs no HOT update that was not already
-- lost; only inactive rows are written to it.
--
-- Template fields: as in 0001_init.sql (.S).

CREATE INDEX items_inactive ON {{.S}}.items (tenant_id, id) WHERE NOT active;
CREATE INDEX faqs_inactive ON {{.S}}.faqs (tenant_id, id) WHERE NOT active;
CREATE INDEX documents_inactive ON {{.S}}.documents (tenant_id, id) WHERE NOT active;
