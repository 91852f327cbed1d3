/**
 * Issue 26 item 1: `fairground run resources/demo/experiments/fair-rag.json` on a workspace that has
 * the demo collection but not the demo's simulated reader (its library already held another model,
 * so the first-start demo skipped the tiny model and the reader) registers the reader the spec names
 * instead of failing with "no model named 'Simulated reader (lost in the middle)'".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const repo = path.resolve(__dirname, '..', '..', '..');
let dir: string;
let ws: string;
const cli = (argv: string[]) => runCliCaptured(argv, { cwd: dir });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'fairground-demo-reader-'));
  ws = path.join(dir, 'w.fairground');
  expect((await cli(['workspace', 'init', '--workspace', ws])).code).toBe(0);
  expect((await cli(['model', 'make-tiny', 'other.gguf'])).code).toBe(0);
  expect((await cli(['model', 'add', 'other.gguf', '--name', 'other', '--workspace', ws])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run names the demo reader on a workspace without it', () => {
  it('registers the reader (and the collection) and plans the run', async () => {
    const spec = path.join(repo, 'resources', 'demo', 'experiments', 'fair-rag.json');
    const r = await cli(['run', spec, '--dry-run', '--workspace', ws]);
    expect(r.stderr).toContain("Registered the simulated reader 'Simulated reader (lost in the middle)'");
    expect(r.code).toBe(0);
    const list = await cli(['model', 'list', '--workspace', ws]);
    expect(list.stdout).toContain('Simulated reader (lost in the middle)');
    expect(list.stdout).toContain('other');
    expect(list.stdout).not.toContain('fairground-tiny');
    // Again: nothing new is registered.
    const again = await cli(['run', spec, '--dry-run', '--workspace', ws]);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('Registered');
  });
});
