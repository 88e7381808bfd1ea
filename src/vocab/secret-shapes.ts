/**
 * Credentials recognised by their shape in text dbtattic keeps or prints without choosing it (a
 * value of `--vars` or of an env var, a stored command line, dbt's failure messages, dbt.log
 * lines): what the name rule misses when the name is DATABASE_URL or there is no name at all.
 * Each rule keeps what says where the secret was (the scheme, the user, the key's name) and
 * replaces the secret itself by ***. Erring towards masking: `password=` followed by anything
 * is masked, even where it is not one.
 */

/** What stands where a credential was. */
export const REDACTED = '***';

/** Key names that hold a credential in free text (`Password=`, `pwd=`, `aws_secret_access_key =`). */
const STRONG_PART = /^(pass|password|passwd|passphrase|pwd|secret|secrets|token|apikey|credential|credentials|privatekey)$|(password|passwd|secret|token)$/i;
const KEY_QUALIFIER = /^(api|access|private|secret|signing|account|master|client|auth)$/i;

/** A name's parts, split at `_`, `-`, `.` and camelCase, as both credential rules read names. */
export function nameParts(name: string): string[] {
  return name.split(/[_\-.]+|(?<=[a-z])(?=[A-Z])/).filter(Boolean);
}

/** True for a key name that holds a credential in free text; `unique_key` or `key` alone does not. */
export function isCredentialKey(name: string): boolean {
  const parts = nameParts(name);
  if (parts.some((part) => STRONG_PART.test(part))) return true;
  return parts.some((part) => /^key$/i.test(part)) && parts.some((part) => KEY_QUALIFIER.test(part));
}

type Rule = [RegExp, (match: string, ...groups: string[]) => string];

const RULES: Rule[] = [
  // PEM blocks, private keys and certificates alike: the body between the armour lines.
  [/(-----BEGIN [A-Z0-9 ]{1,40}-----)[\s\S]*?(-----END [A-Z0-9 ]{1,40}-----)/g, (_, begin, end) => `${begin}${REDACTED}${end}`],
  // The password of URL user-info (postgres://user:pass@host); the user names an account and stays.
  [/\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/?#@:'"]*):([^\s/?#@'"]+)@/gi, (_, scheme, user) => `${scheme}${user}:${REDACTED}@`],
  // An HTTP authorisation header's credentials.
  [/\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9\-._~+/]{8,}=*/g, (_, scheme, space) => `${scheme}${space}${REDACTED}`],
  // key=value and key: value under a credential's name (connection strings, INI, YAML, JSON).
  [
    /\b([A-Za-z_][\w.-]{0,60}?)(["']?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s;,&'"})\]]+)/g,
    (whole, name, separator) => (isCredentialKey(name) ? `${name}${separator}${REDACTED}` : whole),
  ],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, () => REDACTED],
  // Token formats of well-known services.
  [/\b(?:ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|glpat-|xox[abprs]-|sk_live_|sk-)[A-Za-z0-9_-]{16,}/g, () => REDACTED],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, () => REDACTED],
  // AWS secret access keys: 40 characters of base64 mixing cases and digits (a git SHA is lower-case hex).
  [/(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g, (m) => (/[a-z]/.test(m) && /[A-Z]/.test(m) && /[0-9]/.test(m) ? REDACTED : m)],
];

/** `text` with every credential recognised by its shape replaced by ***. */
export function maskSecretShapes(text: string): string {
  let out = text;
  for (const [pattern, replace] of RULES) out = out.replace(pattern, replace as (match: string, ...rest: unknown[]) => string);
  return out;
}

/** As maskSecretShapes, for a value that may be absent. */
export function maskedText(text: string | null): string | null {
  return text === null ? null : maskSecretShapes(text);
}
