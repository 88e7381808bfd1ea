import { isDamaged } from '../store/db/damage.js';
import type { ReadNotice } from '../store/sync/project-store.js';
import { countOf } from '../vocab/index.js';

/** One thing a read says beside its answer: a warning, or a note that something was done first. */
export interface NoticeLine {
  level: 'warning' | 'note';
  text: string;
}

/** What a read's notice says, in the words every front end gives it. */
export function noticeLines(notice: ReadNotice | null): NoticeLine[] {
  if (!notice) return [];
  const lines: NoticeLine[] = [];
  const { movedAside, rebuilt, behind, damage } = notice;
  if (movedAside)
    lines.push({
      level: 'warning',
      text: `the store ${movedAside.from} could not be opened (${movedAside.reason}); it was moved aside to ${movedAside.to} and derived again from the archive`,
    });
  if (rebuilt)
    lines.push({
      level: 'note',
      text: `the store was derived by another version of dbtattic (another store schema or extraction rules); it was rebuilt from the archive first (${countOf(rebuilt.invocations, 'invocation')}), as it is after each upgrade that changes them`,
    });
  if (behind) lines.push({ level: 'warning', text: `${behind.why}, so it was read as it is: ${behind.records} archive record(s) are not in it yet` });
  if (isDamaged(damage)) {
    const named = [...damage.invocations, ...damage.records.map((key) => `record ${key}`)];
    lines.push({
      level: 'warning',
      text: `the archive is damaged; left out of this answer: ${named.slice(0, 5).join(', ')}${named.length > 5 ? ` and ${named.length - 5} more` : ''}. See dbtattic info, and repair with dbtattic verify --repair`,
    });
  }
  return lines;
}
