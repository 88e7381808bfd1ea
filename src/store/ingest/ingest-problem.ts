import type { OutputKind } from '../../archive/index.js';
import type { ArtifactType } from '../../vocab/index.js';

// Its own file: output-rows.ts reports problems too, and ingest.ts imports output-rows.ts.
/** A row of ingest_problem (schema/001-capture-tables.sql says what each kind means). */
export interface IngestProblem {
  invocation_id: string | null;
  /** The artifact left out, or the output (sql, log) when what is damaged is an output's. */
  artifact_type: ArtifactType | OutputKind | null;
  object_id: string | null;
  kind: 'unreadable' | 'damaged';
  archive_key: string | null;
  message: string;
}
