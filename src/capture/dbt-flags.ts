/**
 * dbt's own flags in a wrapped command line (`dbtattic run -- dbt build --target-path x`): what
 * dbt is told decides where it works and writes, so dbtattic reads the same.
 */

/** `--flag value` or `--flag=value`, the last one given, as dbt's parser takes it. */
export function dbtFlag(argv: readonly string[], names: readonly string[]): string | null {
  let found: string | null = null;
  argv.forEach((arg, i) => {
    for (const name of names) {
      if (arg === name && argv[i + 1] !== undefined) found = argv[i + 1]!;
      else if (arg.startsWith(`${name}=`)) found = arg.slice(name.length + 1);
    }
  });
  return found;
}

/** Where the wrapped dbt finds its project and writes target/, when its command line says. */
export function dbtPaths(argv: readonly string[]): { projectDir: string | null; targetPath: string | null } {
  return { projectDir: dbtFlag(argv, ['--project-dir']), targetPath: dbtFlag(argv, ['--target-path']) };
}
