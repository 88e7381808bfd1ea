import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

/**
 * main.ts lists each command by synopsis, so that `--help` needs no command's module; `help`
 * loads every module, whose arguments are the ones declared. Both lists must read the same.
 */
describe('the list of commands in main.ts', () => {
  it("gives each command's arguments as its module declares them", async () => {
    const listed = await runCli(['--help'], { cwd: process.cwd() });
    const declared = await runCli(['help'], { cwd: process.cwd() });
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain('run [options] <command...>');
    expect(listed.stdout).toBe(declared.stdout);
  });

  it('loads only the called command, and still suggests one for a typo', async () => {
    const typo = await runCli(['histry'], { cwd: process.cwd() });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('Did you mean history?');
  });

  it('finds the command after a global option and its value', async () => {
    const help = await runCli(['--store', 'history', 'diff', '--help'], { cwd: process.cwd() });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: dbtattic diff [options] <from> <to>');
  });
});
