import { createHash } from 'node:crypto';
import { objectMembers } from '../json/scan.js';
import { mapMembers } from './scan-items.js';

/**
 * Manifests before v10 do not name their project, but `metadata.project_id` is the md5 of the
 * name (dbt's anonymous tracking id), and the project is one of the packages its nodes belong
 * to. Reading only the keys of the maps ("model.<package>.<name>") finds it without parsing a
 * node. Across the corpus this names the project of every manifest whose project owns a node.
 */
const SECTIONS_BY_LIKELIHOOD = ['nodes', 'sources', 'macros'];

export function inferProjectName(buf: Buffer, projectId: string): string | null {
  const ranges = new Map<string, { start: number; end: number }>();
  for (const member of objectMembers(buf)) {
    if (SECTIONS_BY_LIKELIHOOD.includes(member.key)) ranges.set(member.key, member);
  }
  const tried = new Set<string>();
  for (const section of SECTIONS_BY_LIKELIHOOD) {
    const range = ranges.get(section);
    if (!range) continue;
    for (const { key } of mapMembers(buf, range)) {
      const pkg = key.split('.')[1];
      if (pkg === undefined || tried.has(pkg)) continue;
      tried.add(pkg);
      if (md5(pkg) === projectId) return pkg;
    }
  }
  return null;
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
