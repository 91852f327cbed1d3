/**
 * Issue 18 (start-up): `cli/commands/index.ts` lists each command by its words and summary and
 * imports its module only when it runs or prints its own --help. These checks keep the list true to
 * the modules (same path and summary as the command each entry loads, every command module's
 * exports listed once) and show that top-level and group help load nothing while a command's
 * --help loads only that command.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliCommand, CliCommandEntry, LazyCliCommand } from '../../src-main/cli/command';
import { commands } from '../../src-main/cli/commands/index';
import { runCli } from '../../src-main/cli/main';

async function capture(argv: string[], table: readonly CliCommandEntry[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(argv, { stdout, stderr, stdin: new PassThrough(), cwd: process.cwd(), env: {} }, table);
  return { code, stdout: out, stderr: err };
}

function isCommand(v: unknown): v is CliCommand {
  return typeof v === 'object' && v !== null && Array.isArray((v as CliCommand).path) && typeof (v as CliCommand).run === 'function' && typeof (v as CliCommand).help === 'string';
}

describe('the lazy command list', () => {
  it('loads, for every entry, a command with exactly its path and summary; paths are unique and alphabetical', async () => {
    const keys = commands.map((c) => c.path.join(' '));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
    for (const entry of commands) {
      const cmd = await entry.load();
      expect(isCommand(cmd)).toBe(true);
      expect([cmd.path.join(' '), cmd.summary]).toEqual([entry.path.join(' '), entry.summary]);
    }
  });

  it('lists every command that a module in cli/commands/ exports', async () => {
    const dir = join(__dirname, '..', '..', 'src-main', 'cli', 'commands');
    const exported: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts')) {
      const mod = (await import(join(dir, file))) as Record<string, unknown>;
      for (const v of Object.values(mod)) if (isCommand(v)) exported.push(v.path.join(' '));
    }
    expect(exported.sort()).toEqual(commands.map((c) => c.path.join(' ')).sort());
  });

  it('prints the same help, group listings and per-command help as the loaded commands, loading only what it prints', async () => {
    const loaded = await Promise.all(commands.map((c) => c.load()));
    const loads: string[] = [];
    const counted: LazyCliCommand[] = commands.map((c) => ({
      path: c.path,
      summary: c.summary,
      load: () => {
        loads.push(c.path.join(' '));
        return c.load();
      },
    }));
    for (const argv of [[], ['help'], ['--help'], ['eval'], ['eval', '--help'], ['model'], ['nope'], ['--version']]) {
      expect(await capture(argv, counted)).toEqual(await capture(argv, loaded));
    }
    expect(loads).toEqual([]);
    for (const argv of [['eval', 'ir', '--help'], ['retrieve', '--help'], ['retrieve', 'search', '-h']]) {
      loads.length = 0;
      const lazy = await capture(argv, counted);
      expect(lazy).toEqual(await capture(argv, loaded));
      expect(lazy.code).toBe(0);
      expect(loads).toEqual([argv.filter((a) => !a.startsWith('-')).join(' ')]);
    }
    // Bad options still exit 2 with the command's own one-line reason.
    expect(await capture(['eval', 'ir', '--bogus'], counted)).toEqual(await capture(['eval', 'ir', '--bogus'], loaded));
  });

  it('a command whose module fails to load ends with one line and exit 1', async () => {
    const broken: LazyCliCommand = { path: ['broken'], summary: 'x', load: () => Promise.reject(new Error('Cannot find module ./gone.js\nRequire stack: ...')) };
    expect(await capture(['broken'], [broken])).toEqual({ code: 1, stdout: '', stderr: 'fairground broken: cannot load the command: Cannot find module ./gone.js\n' });
  });
});
