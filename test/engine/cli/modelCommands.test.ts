import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kv, writeGguf } from '../../../src-main/engine/gguf/ggufWriter';
import { tinyGgufSpec } from '../../../src-main/engine/gguf/tinyModel';
import { runCliCaptured } from '../../support/cli';

let dir: string;
let greedyText: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-model-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  const r = await runCliCaptured(argv, { cwd: dir });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('fairground model', () => {
  it('make-tiny writes a seeded model and info reads its header', async () => {
    const made = await cli('model', 'make-tiny', 'tiny.gguf', '--seed', '3');
    expect(made.code).toBe(0);
    expect(made.out).toMatch(/Wrote .*tiny\.gguf: tiny preset, seed 3, 231\.7K parameters, 477\.\d KiB/);
    expect(existsSync(join(dir, 'tiny.gguf'))).toBe(true);
    const info = await cli('model', 'info', 'tiny.gguf', '--json');
    expect(info.code).toBe(0);
    expect(JSON.parse(info.out)).toMatchObject({ architecture: 'llama', parameterCount: 231744, quantization: 'F16', contextLength: 512, hasChatTemplate: true });
    expect((await cli('model', 'make-tiny', 'x.gguf', '--preset', 'huge')).code).toBe(2);
  });

  it('try prints greedy text, the same every time, and samples with --temperature', async () => {
    const a = await cli('model', 'try', 'tiny.gguf', '--prompt', 'The answer is', '--max-tokens', '12', '--threads', '1', '--gpu', 'off');
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    expect(a.out.trim().length).toBeGreaterThan(5);
    greedyText = a.out.slice(0, -1);
    const sampled = await cli('model', 'try', 'tiny.gguf', '--prompt', 'The answer is', '--max-tokens', '12', '--threads', '1', '--gpu', 'off', '--temperature', '1.5', '--seed', '4');
    expect(sampled.code).toBe(0);
    expect(sampled.out).not.toBe(a.out);
  });

  it('add, list, try by name, a failing model marked failed, remove', async () => {
    expect((await cli('workspace', 'init', '-w', 'lab.fairground')).code).toBe(0);
    const added = await cli('model', 'add', 'tiny.gguf', '--name', 'tiny', '-w', 'lab.fairground');
    expect(added.code).toBe(0);
    expect(added.err).toMatch(/hashing tiny\.gguf: 100%/);
    expect(added.out).toMatch(/Added 'tiny' \(llama, 231\.7K parameters, F16, .*\)\n  sha256 [0-9a-f]{64}/);
    expect((await cli('model', 'add', 'tiny.gguf', '--name', 'tiny', '-w', 'lab.fairground')).code).toBe(2);

    const spec = tinyGgufSpec('tiny', 1);
    spec.kv.delete('llama.attention.head_count'); // llama.cpp aborts on this one
    spec.kv.set('general.name', kv.str('broken'));
    await writeGguf(join(dir, 'broken.gguf'), spec);
    expect((await cli('model', 'add', 'broken.gguf', '-w', 'lab.fairground')).code).toBe(0);

    const list = await cli('model', 'list', '-w', 'lab.fairground', '--json');
    expect((JSON.parse(list.out) as { name: string; status: string }[]).map((m) => [m.name, m.status])).toEqual([
      ['broken', 'ready'],
      ['tiny', 'ready'],
    ]);

    const byName = await cli('model', 'try', 'tiny', '--prompt', 'The answer is', '--max-tokens', '12', '--threads', '1', '--gpu', 'off', '-w', 'lab.fairground', '--json');
    expect(byName.code).toBe(0);
    expect(JSON.parse(byName.out)).toMatchObject({ text: greedyText, completionTokens: 12, finishReason: 'length' });

    const crash = await cli('model', 'try', 'broken', '--prompt', 'x', '--threads', '1', '--gpu', 'off', '-w', 'lab.fairground');
    expect(crash.code).toBe(1);
    expect(crash.err).toMatch(/^fairground model try: model-load-failed: the engine process was killed by SIGABRT while loading the model/);
    const info = await cli('model', 'info', 'broken', '-w', 'lab.fairground', '--json');
    expect(JSON.parse(info.out)).toMatchObject({ status: 'failed', error: expect.stringMatching(/SIGABRT/) });
    const text = await cli('model', 'list', '-w', 'lab.fairground');
    expect(text.out).toMatch(/^broken\s+failed .*SIGABRT/m);

    expect((await cli('model', 'remove', 'broken', '-w', 'lab.fairground', '--clear-cache')).code).toBe(0);
    expect((await cli('model', 'info', 'broken', '-w', 'lab.fairground')).code).toBe(2);
  });

  it('refuses files that are not GGUF with the reason', async () => {
    writeFileSync(join(dir, 'notes.gguf'), 'just text');
    const res = await cli('model', 'info', 'notes.gguf');
    expect(res.code).toBe(2);
    expect(res.err).toMatch(/notes\.gguf: not a GGUF file/);
    const tried = await cli('model', 'try', 'notes.gguf', '--prompt', 'x', '--threads', '1');
    expect(tried.code).toBe(1);
    expect(tried.err).toMatch(/model-load-failed: .*notes\.gguf: not a GGUF file/);
  });
});
