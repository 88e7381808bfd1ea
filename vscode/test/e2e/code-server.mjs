// code-server (VS Code in the browser, from npm) for the extension's end-to-end test: installs
// the packaged extension into a fresh extensions dir and serves one folder on loopback only.
// ../shared/notes/vscode-testing.md is the recipe; .ci/code-server installs the binary.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The code-server binary: DBTATTIC_CODE_SERVER, else the one .ci/code-server installs (when missing). */
export function codeServerBinary(repo) {
  if (process.env.DBTATTIC_CODE_SERVER) return process.env.DBTATTIC_CODE_SERVER;
  return execFileSync('bash', [path.join(repo, '.ci', 'code-server')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** Starts code-server on a free loopback port with `settings` as the user's settings. */
export async function startCodeServer({ binary, home, vsix, folder, settings }) {
  const dirs = { data: path.join(home, 'data'), extensions: path.join(home, 'extensions'), config: path.join(home, 'config.yaml') };
  mkdirSync(path.join(dirs.data, 'User'), { recursive: true });
  writeSettings(dirs.data, settings);
  execFileSync(binary, ['--install-extension', vsix, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.data, '--config', dirs.config], {
    stdio: 'ignore',
  });
  const port = await freePort();
  const child = spawn(
    binary,
    [
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--config',
      dirs.config,
      '--user-data-dir',
      dirs.data,
      '--extensions-dir',
      dirs.extensions,
      folder,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`code-server exited ${code}:\n${log}`)));
    const ready = () => (log.includes('HTTP server listening') ? resolve() : setTimeout(ready, 100));
    ready();
  });
  return {
    url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`,
    setSettings: (next) => writeSettings(dirs.data, next),
    log: () => log,
    stop: () => {
      child.removeAllListeners('exit');
      // Its own process group: code-server forks the workbench server and extension hosts.
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
  };
}

function writeSettings(dataDir, settings) {
  writeFileSync(path.join(dataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 1));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
