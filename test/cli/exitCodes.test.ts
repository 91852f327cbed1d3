/**
 * Exit codes (#16.9): Ctrl-C during `fairground run` ends with 130 (128 + SIGINT) after the job
 * has been cancelled with its work kept, so the same command resumes it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src-main/cli/command';
import { makeDemoWorkspace, tinySpec } from '../experiments/fixture';

const ROOT = process.cwd();
let dir: string;
let ws: string;
let specFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-exit-'));
  ws = await makeDemoWorkspace(dir, 'exit.fairground');
  specFile = join(dir, 'spec.json');
  writeFileSync(specFile, JSON.stringify(tinySpec({ name: 'exit', queries: 'all', tasks: ['movie-tag'], samples: 10, alphas: [0, 2, 8], decoding: { maxTokens: 6 } })));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('exit codes', () => {
  it('documents them', () => {
    expect(EXIT).toEqual({ ok: 0, failure: 1, usage: 2, cancelledResumable: 75, interrupted: 130 });
  });

  it('Ctrl-C during fairground run exits 130 (the job cancelled, its work kept)', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'fairground.js'), 'run', specFile, '--workspace', ws], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let alive = true;
    void exited.then(() => (alive = false));
    // The first progress line ('[n / m LLM calls …]') means the job is generating.
    while (alive && !stderr.includes(' LLM calls')) await new Promise((r) => setTimeout(r, 50));
    expect(alive, `the run ended before it could be interrupted: ${stderr}`).toBe(true);
    child.kill('SIGINT');
    // Before: 1, the same code as a failed run.
    expect(await exited).toBe(130);
    expect(stderr).toContain('cancelling (finished results are kept; run again to resume)');
    expect(stderr).toMatch(/was cancelled; run the same command again to resume\n$/);
  }, 120_000);
});
