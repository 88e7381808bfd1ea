import { objectMembers } from '../json/scan.js';
import { openArtifact, type ArtifactHeader, type ReadOptions } from './detect.js';
import { asObject, json, str } from './fields.js';
import { emptyFacts } from './invocation.js';
import type { InvocationFacts, SemanticDefinitionRow, SemanticKind } from './rows.js';
import { listItems, parseRange, readGuarded } from './scan-items.js';

/**
 * semantic_manifest.json (dbt 1.6+, MetricFlow's input) → a row per semantic model, metric and
 * saved query, each with its whole definition as JSON. The file has no metadata, so the archive
 * says which invocation it belongs to (its sibling manifest's).
 */
export interface SemanticManifestExtract {
  header: ArtifactHeader;
  invocation: InvocationFacts;
  definitions: SemanticDefinitionRow[];
}

const LIST_KINDS: Readonly<Record<string, SemanticKind>> = {
  semantic_models: 'semantic_model',
  metrics: 'metric',
  saved_queries: 'saved_query',
};

export function extractSemanticManifest(buf: Buffer, options: ReadOptions = {}): SemanticManifestExtract {
  const { header, invocationId } = openArtifact(buf, 'semantic_manifest', options);
  const definitions = readGuarded('semantic_manifest', () => semanticRows(buf, invocationId));
  return { header, invocation: emptyFacts(invocationId), definitions };
}

function semanticRows(buf: Buffer, invocationId: string): SemanticDefinitionRow[] {
  const rows: SemanticDefinitionRow[] = [];
  for (const member of objectMembers(buf)) {
    const kind = LIST_KINDS[member.key];
    if (kind) {
      let index = 0;
      for (const item of listItems(buf, member)) {
        const definition = parseRange(buf, item);
        // Names are unique per kind in MetricFlow; the position stands in for a missing one.
        const name = str(asObject(definition)?.name) ?? `#${index}`;
        rows.push({ invocation_id: invocationId, kind, name, definition: json(definition) ?? 'null' });
        index++;
      }
    } else if (member.key === 'project_configuration') {
      const definition = json(parseRange(buf, member));
      if (definition !== null) rows.push({ invocation_id: invocationId, kind: 'project_configuration', name: 'project_configuration', definition });
    }
  }
  return rows;
}
