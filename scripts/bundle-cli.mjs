// Writes dist/bundle/: the compiled CLI (dist/cli/main.js and every module it reaches) as a few
// ES modules, which bin/dbtattic.js loads. Node resolves, reads, compiles and links each module
// of a program on its own: a reading command's start-up loaded about 95 of ours and of
// commander, chalk and js-yaml one by one (query 'select 1' on a current store: 210 -> 187 ms
// CPU bundled). Each command stays its own chunk, loaded when it is called, so capture still
// never loads DuckDB. The bundle sits at dist/bundle/, the depth of the compiled modules it
// holds, so the files they find beside themselves (schema/, assets/, package.json, vendor/)
// are where they were. Packages other than those three are loaded as they are.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const INLINED = new Set(['commander', '@commander-js/extra-typings', 'chalk', 'js-yaml']);
const out = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
rmSync(out, { recursive: true, force: true });
await build({
  input: { main: fileURLToPath(new URL('../dist/cli/main.js', import.meta.url)) },
  platform: 'node',
  external: (id) => /^[^./#]/.test(id) && !INLINED.has(packageOf(id)) && id !== 'node:process',
  plugins: [processGlobal()],
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
});

function packageOf(id) {
  const parts = id.split('/');
  return id.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * `import process from 'node:process'` (chalk's supports-color) as the global it is. Node builds
 * an ES module's view of a built-in module by reading every property, and process's getters
 * create stdin and stdout, load the report module and list the allowed flags: about 4 ms at
 * every start. Only the default import is given; a named one fails the build. A CommonJS
 * require (commander's) gets the object itself from Node, with no such view, and is left alone.
 */
function processGlobal() {
  const id = '\0process-global';
  return {
    name: 'process-global',
    resolveId: (source, _importer, options) => (source === 'node:process' && options.kind === 'import-statement' ? id : null),
    load: (loaded) => (loaded === id ? 'export default globalThis.process;\n' : null),
  };
}
