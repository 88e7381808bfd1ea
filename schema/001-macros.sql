-- Macros shared by views and by dbtattic's own queries (inspect, diff), so a change between two
-- node states is classified by one rule everywhere.

-- What changed between two states of one node. `a` and `b` are rows of the `node` view (a
-- node_version with the invocation's fingerprint), passed whole as structs. Kinds:
--   semantic  the fingerprint changed: what the node builds is different
--   cosmetic  the raw code changed but the fingerprint did not (comments, whitespace, case)
--   config    config or materialization changed
--   relation  the configured database, schema or identifier changed
--   docs      description, meta, tags or documented columns changed
CREATE OR REPLACE MACRO node_change_aspects(a, b) AS list_filter([
  CASE WHEN a.fingerprint IS DISTINCT FROM b.fingerprint THEN 'semantic' END,
  CASE WHEN a.fingerprint IS NOT DISTINCT FROM b.fingerprint AND a.raw_code IS DISTINCT FROM b.raw_code THEN 'cosmetic' END,
  CASE WHEN a.materialization IS DISTINCT FROM b.materialization
         OR a.config::VARCHAR IS DISTINCT FROM b.config::VARCHAR
         OR a.unrendered_config::VARCHAR IS DISTINCT FROM b.unrendered_config::VARCHAR THEN 'config' END,
  CASE WHEN a.database_name IS DISTINCT FROM b.database_name
         OR a.schema_name IS DISTINCT FROM b.schema_name
         OR a.identifier IS DISTINCT FROM b.identifier THEN 'relation' END,
  CASE WHEN a.description IS DISTINCT FROM b.description
         OR a.meta::VARCHAR IS DISTINCT FROM b.meta::VARCHAR
         OR a.tags::VARCHAR IS DISTINCT FROM b.tags::VARCHAR
         OR a.declared_columns::VARCHAR IS DISTINCT FROM b.declared_columns::VARCHAR THEN 'docs' END
], x -> x IS NOT NULL);

-- The one kind that best names a change, most consequential first.
CREATE OR REPLACE MACRO node_change_kind(aspects) AS CASE
  WHEN list_contains(aspects, 'semantic') THEN 'semantic'
  WHEN list_contains(aspects, 'relation') THEN 'relation'
  WHEN list_contains(aspects, 'config') THEN 'config'
  WHEN list_contains(aspects, 'cosmetic') THEN 'cosmetic'
  WHEN list_contains(aspects, 'docs') THEN 'docs'
  ELSE 'other' END;
