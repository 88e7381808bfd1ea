-- dbtattic store: views over the tables of 001-tables.sql. Views hold no data; they are
-- replaced whenever the schema is applied.

-- Grain: a node as it stood in an invocation: node_invocation joined to the node version it
-- held, flat, so "what did model X look like in invocation Y" is one filter. Disabled entries
-- are included (disabled = true). Key: (invocation_id, node_version_id).
-- Named `node`, not v_node: it is the one view people reach for first, and the issue names it so.
CREATE OR REPLACE VIEW node AS
SELECT
  ni.invocation_id,
  nv.*
FROM node_invocation AS ni
JOIN node_version AS nv ON nv.node_version_id = ni.node_version_id;
