import { listInvocationIds, openArchive } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { uniquePrefixes } from '../vocab/index.js';

/**
 * Abbreviates invocation ids against every id the archive holds (plus `shown`, which a dry run
 * has not filed), so a printed prefix is unique and can be typed back. Only for human output:
 * the listing is not worth paying for under --quiet or --json.
 */
export async function archiveAbbreviator(config: AtticConfig, shown: Iterable<string>): Promise<(id: string) => string> {
  const ids = [...shown];
  const archive = await openArchive(config.archiveLocation, { create: false, remote: config.remote }).catch(() => null); // a dry run before the first capture
  if (archive) ids.push(...(await listInvocationIds(archive)));
  return uniquePrefixes(ids);
}
