/**
 * URLs we record (a git remote, a catalog endpoint) must not carry secrets. Over http(s) the
 * whole user-info goes, user name included: `https://ghp_xxx@github.com/...` puts a token in
 * the user slot. Over ssh the user stays (it is an account name such as `git`, and ssh
 * authenticates with keys, not with anything in the URL) and only a password would go, so the
 * recorded remote is still one a colleague can clone.
 */

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const SSH_SCHEMES = new Set(['ssh', 'git+ssh', 'ssh+git']);

/** The URL without credentials; anything that is not a URL (a path, `git@host:org/repo`) is returned unchanged. */
export function stripUrlCredentials(url: string): string {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Unparseable but scheme-bearing: drop everything between `//` and the last `@` of the authority.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
  }
  const ssh = SSH_SCHEMES.has(scheme);
  const hasSecret = parsed.password !== '' || (!ssh && (parsed.username !== '' || parsed.search !== '' || parsed.hash !== ''));
  if (!hasSecret) return url;
  parsed.password = '';
  if (!ssh) {
    parsed.username = '';
    // Query strings are where signed URLs and `?token=` live; no git remote or catalog root needs one.
    parsed.search = '';
    parsed.hash = '';
  }
  return parsed.toString();
}
