import { sha256 } from '../vocab/index.js';

/**
 * The project a dataset partition names, the same on every machine and CI runner that runs one
 * dbt project, and different for two projects that happen to share a name: `export.project`
 * when dbtattic.yml sets it; else the manifest's project name and a short digest of the git
 * remote the project's runs were captured with (the newest one known), so `analytics` of two
 * repositories stay apart. The name alone when no run knew a remote.
 */
export function projectKey(explicit: string | null, projectName: string | null, gitRemote: string | null): string {
  if (explicit) return partitionValue(explicit);
  const name = partitionValue(projectName ?? 'unnamed');
  const remote = gitRemote ? normalizedRemote(gitRemote) : null;
  return remote ? `${name}-${sha256(remote).slice(0, 8)}` : name;
}

/**
 * One repository however it was cloned: `git@github.com:Acme/x.git`, `https://user@github.com/Acme/x`
 * and `ssh://git@github.com/Acme/x.git` are all `github.com/acme/x`.
 */
export function normalizedRemote(remote: string): string {
  const scp = /^[^/@:]+@([^:/]+):(.+)$/.exec(remote.trim());
  const text = scp
    ? `${scp[1]}/${scp[2]}`
    : remote
        .trim()
        .replace(/^[a-z+]+:\/\//i, '')
        .replace(/^[^/@]*@/, '');
  return text
    .replace(/\.git\/?$/, '')
    .replace(/\/+$/, '')
    .replace(/:\d+\//, '/')
    .toLowerCase();
}

/** A value Hive partitioning keeps as it is: no '/', '=', '%', spaces or quotes. */
function partitionValue(text: string): string {
  return text.trim().replace(/[^A-Za-z0-9_.-]/g, '_') || 'unnamed';
}
