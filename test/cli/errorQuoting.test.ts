/**
 * Issue 26: `cache import` of a line whose custom_id is 10 MB wrote the whole id to stderr. The refusal names the
 * file, line and field and quotes the value cut (core/errors quoteValue); the CLI also cuts any error line past 2,000
 * characters as a last guard.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-error-quoting-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('error lines quote long values cut', () => {
  it('cache import with a 10 MB custom_id: one short line naming file:line and field, nothing imported', async () => {
    const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });
    expect((await cli('workspace', 'init', '-w', 'w.fairground')).code).toBe(0);
    const huge = 'c'.repeat(10 * 1024 * 1024);
    writeFileSync(join(dir, 'out.jsonl'), `\n${JSON.stringify({ custom_id: huge, response: null, error: null })}\n`);
    const r = await cli('cache', 'import', 'out.jsonl', '-w', 'w.fairground');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`fairground cache import: out.jsonl:2: custom_id: custom_id must be a call key exported by fairground plan export, got "${'c'.repeat(120)}…" (10485760 characters)\n`);
  });
});
