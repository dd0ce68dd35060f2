-- 0001_init: catalog items and files, FAQs, documents, and one chunk table
-- per owner kind with its embedding, HNSW index and trigram index.
--
-- Template fields (filled by Migrate, never from user input):
--   .S     the quoted schema name, e.g. "hybridrag"
--   .Dims  the embedding dimensions (vector(N))
--   .Plain whether embeddings are stored inline (ALTER ... SET STORAGE PLAIN)
--   .HNSW  whether to build HNSW indexes (pgvector indexes at most 2000 dims)
--
-- Owner tables keep rows up to 8 kB inline and uncompressed
-- (toast_tuple_target), so LIKE/strpos on search_text reads it in place
-- instead of fetching and decompressing TOAST chunks on every call.
-- The *_recent indexes give lexical windows their newest-first order.
--
-- IDs and chunk sources use COLLATE "C" so that ORDER BY and range scans
-- compare bytes, like Go's string comparison, whatever the database collation.

CREATE TABLE {{.S}}.items (
    tenant_id         text COLLATE "C" NOT NULL,
    id                text COLLATE "C" NOT NULL,
    name              text NOT NULL,
    description       text NOT NULL,
    category          text NOT NULL,
    manufacturer      text NOT NULL,
    tags              text[] NOT NULL,
    price             double precision,
    active            boolean NOT NULL,
    metadata          jsonb NOT NULL,
    search_text       text COLLATE "C" NOT NULL,
    category_norm     text COLLATE "C" NOT NULL,
    manufacturer_norm text COLLATE "C" NOT NULL,
    tags_norm         text[] COLLATE "C" NOT NULL,
    metadata_norm     jsonb NOT NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITH (toast_tuple_target = 8160);
CREATE INDEX items_search_trgm ON {{.S}}.items USING gin (search_text gin_trgm_ops);
CREATE INDEX items_recent ON {{.S}}.items (tenant_id, created_at DESC, id) WHERE active;

CREATE TABLE {{.S}}.item_files (
    tenant_id text COLLATE "C" NOT NULL,
    item_id   text COLLATE "C" NOT NULL,
    seq       integer NOT NULL,
    name      text NOT NULL,
    body      text NOT NULL,
    PRIMARY KEY (tenant_id, item_id, seq),
    FOREIGN KEY (tenant_id, item_id) REFERENCES {{.S}}.items (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE {{.S}}.faqs (
    tenant_id     text COLLATE "C" NOT NULL,
    id            text COLLATE "C" NOT NULL,
    question      text NOT NULL,
    answer        text NOT NULL,
    category      text NOT NULL,
    keywords      text[] NOT NULL,
    priority      integer NOT NULL,
    active        boolean NOT NULL,
    search_text   text COLLATE "C" NOT NULL,
    category_norm text COLLATE "C" NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITH (toast_tuple_target = 8160);
CREATE INDEX faqs_search_trgm ON {{.S}}.faqs USING gin (search_text gin_trgm_ops);
CREATE INDEX faqs_recent ON {{.S}}.faqs (tenant_id, created_at DESC, id) WHERE active;

CREATE TABLE {{.S}}.documents (
    tenant_id     text COLLATE "C" NOT NULL,
    id            text COLLATE "C" NOT NULL,
    source        text NOT NULL,
    title         text NOT NULL,
    content       text NOT NULL,
    content_hash  text COLLATE "C" NOT NULL,
    metadata      jsonb NOT NULL,
    search_text   text COLLATE "C" NOT NULL,
    source_norm   text COLLATE "C" NOT NULL,
    metadata_norm jsonb NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITH (toast_tuple_target = 8160);
CREATE INDEX documents_search_trgm ON {{.S}}.documents USING gin (search_text gin_trgm_ops);
CREATE INDEX documents_recent ON {{.S}}.documents (tenant_id, created_at DESC, id);
CREATE INDEX documents_hash ON {{.S}}.documents (tenant_id, content_hash);
{{range $t := .ChunkTables}}
CREATE TABLE {{$.S}}.{{$t.Table}} (
    tenant_id    text COLLATE "C" NOT NULL,
    owner_id     text COLLATE "C" NOT NULL,
    source       text COLLATE "C" NOT NULL,
    seq          integer NOT NULL,
    content      text NOT NULL,
    content_hash text COLLATE "C" NOT NULL,
    embedding    vector({{$.Dims}}),
    metadata     jsonb NOT NULL,
    PRIMARY KEY (tenant_id, owner_id, source, seq),
    FOREIGN KEY (tenant_id, owner_id) REFERENCES {{$.S}}.{{$t.Owner}} (tenant_id, id) ON DELETE CASCADE
);
{{- if $.Plain}}
ALTER TABLE {{$.S}}.{{$t.Table}} ALTER COLUMN embedding SET STORAGE PLAIN;
{{- end}}
{{- if $.HNSW}}
CREATE INDEX {{$t.Table}}_embedding_hnsw ON {{$.S}}.{{$t.Table}}
    USING hnsw (embedding vector_ip_ops) WITH (m = 16, ef_construction = 64);
{{- end}}
{{end}}
