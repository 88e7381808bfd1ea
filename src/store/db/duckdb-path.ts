import { AtticError } from '../../errors.js';

/**
 * DuckDB reads `file?key=value` as a file with parameters: it opens the file under its whole
 * name but names the WAL by inserting `.wal` before the first `?`, so a store under a directory
 * with a `?` in its name opens, then fails at the first commit. Neither quoting nor a symlink
 * helps (DuckDB resolves symlinks before naming the WAL), so such a path is refused up front,
 * naming the fix. The archive has no such limit: capture still archives everything.
 */
export function checkDuckdbPath(file: string): string {
  if (!file.includes('?')) return file;
  throw new AtticError(
    'config',
    `The store ${file} has a '?' in its path, which DuckDB reads as the start of parameters and cannot open. ` +
      "Keep the store somewhere without '?' (--store or DBTATTIC_STORE); captures are archived meanwhile.",
    { path: file },
  );
}
