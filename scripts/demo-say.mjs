// How the demo prints: each command in bold on a terminal, as a user would type it.
export const say = (text) => process.stdout.write(`\n${process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text}\n`);

/** A runner of `dbtattic ARGS` that first prints the command line (and why it is run). */
export function shown(attic) {
  return (args, note = '') => {
    say(`$ dbtattic ${args.map((a) => (/[\s*()]/.test(a) ? `"${a}"` : a)).join(' ')}${note ? `        # ${note}` : ''}`);
    return attic(args);
  };
}
