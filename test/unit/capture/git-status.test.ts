import { describe, expect, it } from 'vitest';
import { isDirty, parseGitStatus } from '../../../src/capture/git-status.js';

const OID = '04cd2b6a9061e6644f5d358647396300aa63cf50';
const z = (...records: string[]): string => `${records.join('\0')}\0`;

describe('parseGitStatus', () => {
  it('reads the commit, the branch and the changes', () => {
    const status = parseGitStatus(
      z(
        `# branch.oid ${OID}`,
        '# branch.head feature/x',
        '# branch.upstream origin/feature/x',
        '# branch.ab +1 -0',
        `1 .M N... 100644 100644 100644 ${OID} ${OID} models/a.sql`,
        `2 R. N... 100644 100644 100644 ${OID} ${OID} R100 models/new name.sql`,
        'models/old.sql',
        '? notes/todo.md',
        '? ? odd.sql',
      ),
    );
    expect(status).toEqual({ sha: OID, branch: 'feature/x', changedCount: 2, untracked: ['notes/todo.md', '? odd.sql'] });
    expect(isDirty(status)).toBe(true);
  });

  it('reads a detached HEAD and a repository without commits as null', () => {
    expect(parseGitStatus(z(`# branch.oid ${OID}`, '# branch.head (detached)'))).toMatchObject({ sha: OID, branch: null });
    const initial = parseGitStatus(z('# branch.oid (initial)', '# branch.head main'));
    expect(initial).toMatchObject({ sha: null, branch: 'main' });
    expect(isDirty(initial)).toBe(false);
  });

  it('counts unmerged entries as changes', () => {
    expect(parseGitStatus(z(`u UU N... 100644 100644 100644 100644 ${OID} ${OID} ${OID} a.sql`)).changedCount).toBe(1);
  });
});
