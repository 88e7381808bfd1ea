import { readFileSync } from 'node:fs';

/** Our own version, from package.json, recorded in every capture. */
export const TOOL_VERSION: string = (() => {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return pkg && typeof pkg === 'object' && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
})();
