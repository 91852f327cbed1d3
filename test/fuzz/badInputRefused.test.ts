/**
 * Input that is refused, not changed (issue 15 item 6): each case of the attack, through the CLI
 * (one line naming file, line and field; exit 2) or the API (a 400, not a 500).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { startBrowserMode } from '../../src-main/server/browserMode';
import { cli, fastTmpDir } from './cliHarness';

let dir: string;
let ws: string;
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

beforeAll(async () => {
  dir = mkdtempSync(join(fastTmpDir(), 'fg-refused-'));
  ws = join(dir, 'w.fairground');
  expect((await cli(['workspace', 'init', '-w', ws], dir)).code).toBe(0);
  writeFileSync(join(dir, 'run.txt'), 'q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n');
  writeFileSync(join(dir, 'qrels.txt'), 'q1 0 d1 1\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refused(argv: string[], message: RegExp): Promise<void> {
  const r = await cli(argv, dir);
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
  expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
  expect(r.stderr, argv.join(' ')).toMatch(message);
}

describe('refused, not changed', () => {
  it('a numeric id beyond 2^53 is refused (it would be stored rounded), naming file, line and field', async () => {
    writeFileSync(join(dir, 'big-id.jsonl'), '{"id": 1, "text": "fine"}\n{"id": 123456789012345678901234567890, "text": "rounded"}\n');
    await refused(['collection', 'import', '--kind', 'corpus', '--name', 'c', '-w', ws, join(dir, 'big-id.jsonl')], /big-id\.jsonl:2: id: the number 1\.2345678901234568e\+29 is too large to keep exactly/);
    // 2^53 - 1 is exact, and kept.
    writeFileSync(join(dir, 'max-id.jsonl'), `{"id": ${Number.MAX_SAFE_INTEGER}, "text": "exact"}\n`);
    expect((await cli(['collection', 'import', '--kind', 'corpus', '--name', 'c', '-w', ws, join(dir, 'max-id.jsonl')], dir)).code).toBe(0);
  });

  it('a lone surrogate is refused with file and line (it would become U+FFFD)', async () => {
    writeFileSync(join(dir, 'surrogate.jsonl'), '{"id": "a", "text": "ok \\ud83d\\ude00"}\n{"id": "b", "text": "half \\ud800 a pair"}\n');
    await refused(['collection', 'import', '--kind', 'corpus', '--name', 's', '-w', ws, join(dir, 'surrogate.jsonl')], /surrogate\.jsonl:2: \\ud800 is half of a UTF-16 surrogate pair/);
  });

  it('100k-deep JSON: a depth limit with file and line, in a corpus line, a spec file and an API body', async () => {
    writeFileSync(join(dir, 'deep.jsonl'), `{"id": "a", "text": "x"}\n{"id": "b", "text": "y", "x": ${deep(100_000)}}\n`);
    await refused(['collection', 'import', '--kind', 'corpus', '--name', 'd', '-w', ws, join(dir, 'deep.jsonl')], /deep\.jsonl:2: JSON nested deeper than 256 levels/);
    writeFileSync(join(dir, 'spec.json'), `{\n"kind": "fair-rag",\n"x": ${deep(100_000)}}`);
    await refused(['run', join(dir, 'spec.json'), '-w', ws], /spec\.json:3: JSON nested deeper than 256 levels/);
    const app = await startBrowserMode({ workspacePath: join(dir, 'api', 'w.fairground'), staticDir: dir });
    try {
      const res = await fetch(`${app.server.url}api/settings.update`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
        body: `{"theme": ${deep(100_000)}}`,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/JSON nested deeper than 256 levels/);
    } finally {
      await app.close();
    }
  });

  it('GGUF files with an unknown tensor type or an unaligned tensor offset are refused by model add', async () => {
    const good = join(dir, 'tiny.gguf');
    await writeTinyGguf(good, { preset: 'tiny', seed: 5 });
    const bytes = readFileSync(good);
    // The first tensor info: its name, u32 n_dims, n_dims u64 dims, u32 type, u64 offset.
    const name = Buffer.from('token_embd.weight');
    const at = bytes.indexOf(name) + name.length;
    const nDims = bytes.readUInt32LE(at);
    const typeAt = at + 4 + 8 * nDims;
    const unknownType = Buffer.from(bytes);
    unknownType.writeUInt32LE(99, typeAt);
    writeFileSync(join(dir, 'unknown-type.gguf'), unknownType);
    const unaligned = Buffer.from(bytes);
    unaligned.writeBigUInt64LE(unaligned.readBigUInt64LE(typeAt + 4) + 1n, typeAt + 4);
    writeFileSync(join(dir, 'unaligned.gguf'), unaligned);
    await refused(['model', 'add', join(dir, 'unknown-type.gguf'), '-w', ws], /unknown-type\.gguf: .*tensor token_embd\.weight has an unknown tensor type 99/);
    await refused(['model', 'add', join(dir, 'unaligned.gguf'), '-w', ws], /unaligned\.gguf: .*tensor token_embd\.weight starts at offset \d+, not a multiple of the alignment 32/);
    expect((await cli(['model', 'add', good, '-w', ws], dir)).code).toBe(0);
  });

  it('model add of a folder names the folder', async () => {
    mkdirSync(join(dir, 'models-folder'));
    await refused(['model', 'add', join(dir, 'models-folder'), '-w', ws], /models-folder: is a folder, not a GGUF file/);
  });

  it('negative -k and --alpha get the option’s range error, not parser text', async () => {
    await refused(['sample', '--run', join(dir, 'run.txt'), '--alpha', '-2', '--samples', '3', '-k', '2', '--seed', '1'], /--alpha: must be at least 0, got -2/);
    await refused(['sample', '--run', join(dir, 'run.txt'), '--alpha', '2', '--samples', '3', '-k', '-2', '--seed', '1'], /-k|--k: must be at least 1, got -2/);
    await refused(['eval', 'exposure', '--run', join(dir, 'run.txt'), '--qrels', join(dir, 'qrels.txt'), '-k', '-3'], /must be at least 1, got -3/);
  });

  it('a closed pipe (| head) ends quietly: no EPIPE trace', () => {
    const run = join(dir, 'long.run');
    writeFileSync(run, Array.from({ length: 2000 }, (_, i) => `q${i % 50} Q0 d${i} ${(i % 40) + 1} ${1000 - i} r`).join('\n') + '\n');
    const bin = join(process.cwd(), 'bin', 'fairground.js');
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(bin)} sample --run ${JSON.stringify(run)} --alpha 2 --samples 2000 -k 10 --seed 1 | head -n 1`], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stdout.split('\n')[0]).toMatch(/^q\d+ Q0 d\d+ 1 /);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
    expect([0, 141]).toContain(r.status);
  }, 130_000);
});
