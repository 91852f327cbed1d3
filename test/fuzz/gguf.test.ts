/**
 * Malformed GGUF files (issue 10): files written by our GGUF writer, then cut off at random points,
 * given a wrong magic, or with one header field (a count, a string or array length, a value or
 * item type, a tensor's dimensions, type or offset) set to a hostile value. The reader answers
 * each with model info or a DataError naming the file — never another exception, never a hang or
 * a huge allocation; `fairground model add` prints one line; and a few files that pass the reader
 * but are wrong for llama.cpp are loaded by the local engine, which reports a failure while this
 * process lives on (at most 5 engine loads, 1 thread).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { createRng, type Rng } from '../../src-main/core/random/rng';
import { GgmlType, GgufValueType } from '../../src-main/engine/gguf/ggufFormat';
import { readGgufMetadata } from '../../src-main/engine/gguf/ggufReader';
import { kv, writeGguf, type GgufSpec } from '../../src-main/engine/gguf/ggufWriter';
import { tinyGgufSpec } from '../../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { EngineError } from '../../src-main/engine/types';
import { TEST_SETTINGS } from '../engine/support/tinyModels';
import { cli } from './cliHarness';

const CASES = Number(process.env.FUZZ_CASES ?? 250);

let dir: string;
let valid: Buffer;
let fields: Field[];

/** A small file with every value type the writer knows, arrays of both kinds, and two tensors. */
function smallSpec(): GgufSpec {
  return {
    kv: new Map([
      ['general.architecture', kv.str('llama')],
      ['general.name', kv.str('fuzz')],
      ['general.alignment', kv.u32(32)],
      ['llama.context_length', kv.u32(128)],
      ['llama.embedding_length', kv.u32(8)],
      ['llama.rope.freq_base', kv.f32(10000)],
      ['llama.block_count', kv.i32(1)],
      ['general.size', kv.u32(1)],
      ['tokenizer.add_bos', kv.bool(true)],
      ['tokenizer.ggml.tokens', kv.arr(GgufValueType.STRING, Array.from({ length: 20 }, (_, i) => `t${i}`))],
      ['tokenizer.ggml.scores', kv.arr(GgufValueType.FLOAT32, [0, 1, 2])],
      ['tokenizer.chat_template', kv.str('{{ messages }}')],
    ]),
    tensors: [
      { name: 'token_embd.weight', dims: [8, 20], type: GgmlType.F16, values: () => new Float32Array(160).fill(0.5) },
      { name: 'output_norm.weight', dims: [8], type: GgmlType.F32, values: () => new Float32Array(8).fill(1) },
    ],
  };
}

/** A header field of the valid file: where it is and how wide. */
interface Field {
  name: string;
  offset: number;
  size: 4 | 8;
}

/** Walks the header of a file our writer produced, listing every count, length, type and offset. */
function headerFields(b: Buffer): Field[] {
  const out: Field[] = [
    { name: 'version', offset: 4, size: 4 },
    { name: 'tensor count', offset: 8, size: 8 },
    { name: 'kv count', offset: 16, size: 8 },
  ];
  let pos = 24;
  const u32 = (name: string) => {
    out.push({ name, offset: pos, size: 4 });
    const v = b.readUInt32LE(pos);
    pos += 4;
    return v;
  };
  const u64 = (name: string) => {
    out.push({ name, offset: pos, size: 8 });
    const v = Number(b.readBigUInt64LE(pos));
    pos += 8;
    return v;
  };
  const str = (name: string) => {
    const n = u64(`${name} length`);
    const s = b.toString('utf8', pos, pos + n);
    pos += n;
    return s;
  };
  const scalarSize: Record<number, number> = { 4: 4, 5: 4, 6: 4, 7: 1, 10: 8 };
  const kvCount = Number(b.readBigUInt64LE(16));
  const tensorCount = Number(b.readBigUInt64LE(8));
  for (let i = 0; i < kvCount; i++) {
    const key = str(`key ${i}`);
    const type = u32(`${key} type`);
    if (type === GgufValueType.STRING) str(key);
    else if (type === GgufValueType.ARRAY) {
      const item = u32(`${key} item type`);
      const n = u64(`${key} array length`);
      for (let j = 0; j < n; j++) {
        if (item === GgufValueType.STRING) str(`${key}[${j}]`);
        else pos += scalarSize[item]!;
      }
    } else pos += scalarSize[type]!;
  }
  for (let i = 0; i < tensorCount; i++) {
    const name = str(`tensor ${i} name`);
    const nDims = u32(`${name} n_dims`);
    for (let d = 0; d < nDims; d++) u64(`${name} dim ${d}`);
    u32(`${name} type`);
    u64(`${name} offset`);
  }
  return out;
}

const HOSTILE_32 = [0, 1, 2, 3, 5, 9, 13, 31, 0x7fffffff, 0xffffffff];
const HOSTILE_64 = [0n, 1n, 5n, 1n << 24n, (1n << 24n) + 1n, 1n << 32n, 1n << 53n, (1n << 63n) - 1n, (1n << 64n) - 1n];

interface Corruption {
  name: string;
  bytes: Buffer;
}

function corrupt(rng: Rng): Corruption {
  const b = Buffer.from(valid);
  const headerEnd = fields.length ? fields[fields.length - 1]!.offset + 8 : 64;
  switch (rng.nextInt(6)) {
    case 0: {
      // Cut off, mostly inside the header where every byte is structure.
      const at = rng.nextFloat() < 0.8 ? rng.nextInt(headerEnd + 1) : rng.nextInt(b.length);
      return { name: `truncate@${at}`, bytes: b.subarray(0, at) };
    }
    case 1: {
      const magics = ['GGUG', 'gguf', 'GGML', '\0\0\0\0', 'PK\x03\x04', 'FUGG'];
      const m = magics[rng.nextInt(magics.length)]!;
      b.write(m, 0, 'latin1');
      return { name: `magic ${JSON.stringify(m)}`, bytes: b };
    }
    case 2:
    case 3: {
      const f = fields[rng.nextInt(fields.length)]!;
      if (f.size === 4) {
        const v = HOSTILE_32[rng.nextInt(HOSTILE_32.length)]!;
        b.writeUInt32LE(v, f.offset);
        return { name: `${f.name} = ${v}`, bytes: b };
      }
      const v = HOSTILE_64[rng.nextInt(HOSTILE_64.length)]!;
      b.writeBigUInt64LE(v, f.offset);
      return { name: `${f.name} = ${v}`, bytes: b };
    }
    case 4: {
      const n = 1 + rng.nextInt(4);
      const at: number[] = [];
      for (let i = 0; i < n; i++) {
        const o = rng.nextInt(headerEnd);
        at.push(o);
        b[o] = rng.nextInt(256);
      }
      return { name: `flip header bytes @${at.join(',')}`, bytes: b };
    }
    default: {
      // A field set off by one, the classic length bug.
      const f = fields[rng.nextInt(fields.length)]!;
      const delta = rng.nextFloat() < 0.5 ? 1 : -1;
      if (f.size === 4) b.writeUInt32LE((b.readUInt32LE(f.offset) + delta) >>> 0, f.offset);
      else b.writeBigUInt64LE(BigInt.asUintN(64, b.readBigUInt64LE(f.offset) + BigInt(delta)), f.offset);
      return { name: `${f.name} ${delta > 0 ? '+1' : '-1'}`, bytes: b };
    }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-fuzz-gguf-'));
  await writeGguf(join(dir, 'valid.gguf'), smallSpec());
  valid = readFileSync(join(dir, 'valid.gguf'));
  fields = headerFields(valid);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fuzzed GGUF files', () => {
  it('the walker finds the fields of the valid file, which reads back', async () => {
    expect(fields.length).toBeGreaterThan(40);
    const info = await readGgufMetadata(join(dir, 'valid.gguf'));
    expect(info).toMatchObject({ architecture: 'llama', name: 'fuzz', tensorCount: 2, parameterCount: 168 });
  });

  it(`the reader: info or a DataError naming the file, for ${CASES} corrupted files`, async () => {
    const rng = createRng(401 + Number(process.env.FUZZ_SEED ?? 0));
    const violations: string[] = [];
    let rejected = 0;
    for (let i = 0; i < CASES; i++) {
      const c = corrupt(rng);
      const file = join(dir, `c${i}.gguf`);
      writeFileSync(file, c.bytes);
      const t0 = performance.now();
      try {
        const info = await readGgufMetadata(file);
        if (typeof info.parameterCount !== 'number') violations.push(`#${i} [${c.name}]: no parameter count`);
      } catch (err) {
        rejected++;
        if (!(err instanceof DataError)) violations.push(`#${i} [${c.name}]: ${(err as Error).name}: ${(err as Error).message}`);
        else if (!err.message.startsWith(`${file}: `) || err.message.includes('\n')) violations.push(`#${i} [${c.name}]: message ${JSON.stringify(err.message)}`);
      }
      const ms = performance.now() - t0;
      if (ms > 2000) violations.push(`#${i} [${c.name}]: took ${ms.toFixed(0)} ms`);
      rmSync(file);
    }
    expect(rejected).toBeGreaterThan(CASES / 2);
    expect(violations).toEqual([]);
  });

  it('fairground model add: one line naming the file, nothing added', async () => {
    const rng = createRng(402);
    expect((await cli(['workspace', 'init', '-w', 'w.fairground'], dir)).code).toBe(0);
    const problems: string[] = [];
    for (let i = 0; i < 20; i++) {
      const c = corrupt(rng);
      writeFileSync(join(dir, `add${i}.gguf`), c.bytes);
      const r = await cli(['model', 'add', `add${i}.gguf`, '-w', 'w.fairground'], dir);
      if (r.code === 0) continue;
      if (r.code !== 2 || !/^fairground model add: .*add\d+\.gguf: [^\n]+\n$/.test(r.stderr)) problems.push(`#${i} [${c.name}]: exit ${r.code} ${JSON.stringify(r.stderr)}`);
    }
    expect(problems).toEqual([]);
    const list = await cli(['model', 'list', '-w', 'w.fairground', '--json'], dir);
    const added = JSON.parse(list.stdout) as unknown[];
    // Only files the reader accepted may have been added.
    expect(added.length).toBeLessThan(20);
  });
});

describe('the local engine on GGUFs llama.cpp rejects', () => {
  // Files that pass our reader (so they reach llama.cpp) but are wrong for llama: each load must
  // fail as model-load-failed while this process lives. 4 loads, 1 thread.
  const broken: [string, (spec: GgufSpec) => void][] = [
    ['unknown architecture', (s) => s.kv.set('general.architecture', kv.str('no-such-arch'))],
    ['no tokens', (s) => s.kv.delete('tokenizer.ggml.tokens')],
    ['a tensor with swapped dimensions', (s) => (s.tensors[0]!.dims = [...s.tensors[0]!.dims].reverse())],
    ['more layers than tensors', (s) => s.kv.set('llama.block_count', kv.u32(7))],
  ];

  for (const [name, alter] of broken) {
    it(`${name}: a load failure, and the process lives`, async () => {
      const spec = tinyGgufSpec('tiny', 1);
      alter(spec);
      const path = join(dir, `${name.replace(/\W+/g, '-')}.gguf`);
      await writeGguf(path, spec);
      await readGgufMetadata(path); // passes our reader: the engine must cope
      const engine = new LocalEngine({ modelPath: path, settings: TEST_SETTINGS });
      try {
        const outcome = await engine.load().then(
          () => 'loaded',
          (e: unknown) => e,
        );
        // All four are refused by llama.cpp (unknown architecture, no vocabulary, wrong shape,
        // missing layer tensors); none may take this process down with it.
        expect(outcome).toBeInstanceOf(EngineError);
        expect((outcome as EngineError).code).toBe('model-load-failed');
        expect((outcome as EngineError).message).toMatch(/load/i);
        expect(engine.state.status).toBe('failed');
      } finally {
        await engine.close();
      }
      // Still here, and still able to work: the reader answers for the valid file.
      expect((await readGgufMetadata(join(dir, 'valid.gguf'))).name).toBe('fuzz');
    }, 60_000);
  }
});
