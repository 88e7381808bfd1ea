import { objectMembers, parseMember } from '../json/scan.js';
import type { ArtifactType } from '../vocab/index.js';
import { asObject, type JsonObject } from './fields.js';
import { listItems, parseRange, readGuarded } from './scan-items.js';

/**
 * run_results.json and sources.json share a shape: a `results` list beside `elapsed_time` (and
 * `args` in run_results). Since 1.3 each result carries its compiled code, so the list is parsed
 * one result at a time and only the small rows are kept.
 */
export interface ResultsFile<Row> {
  results: Row[];
  /** The small top-level members other than `results` and `metadata`. */
  top: JsonObject;
}

/** Shapes every result with `toRow`; a result `toRow` returns null for is left out. */
export function scanResults<Row>(buf: Buffer, type: ArtifactType, toRow: (result: JsonObject) => Row | null): ResultsFile<Row> {
  const results: Row[] = [];
  const top: JsonObject = {};
  readGuarded(type, () => {
    for (const member of objectMembers(buf)) {
      if (member.key === 'results') {
        for (const item of listItems(buf, member)) {
          const row = toRow(asObject(parseRange(buf, item)) ?? {});
          if (row !== null) results.push(row);
        }
      } else if (member.key !== 'metadata') {
        top[member.key] = parseMember(buf, member);
      }
    }
  });
  return { results, top };
}
