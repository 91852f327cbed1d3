import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { GgmlType } from '../../../src-main/engine/gguf/ggufFormat';
import { readGgufMetadata } from '../../../src-main/engine/gguf/ggufReader';
import { kv, writeGguf } from '../../../src-main/engine/gguf/ggufWriter';
import { sha256File } from '../../../src-main/engine/gguf/sha256File';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';

let dir: string;
let tiny: string;
let written: { bytes: number; parameters: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-gguf-'));
  tiny = join(dir, 'tiny.gguf');
  written = await writeTinyGguf(tiny, { preset: 'tiny', seed: 1 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function expectDataError(file: string, pattern: RegExp): Promise<DataError> {
  const err = await readGgufMetadata(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DataError);
  const de = err as DataError;
  expect(de.file).toBe(file);
  expect(de.message).toContain(file);
  expect(de.reason).toMatch(pattern);
  return de;
}

describe('writeTinyGguf + readGgufMetadata', () => {
  it('describes the generated model without loading weights', async () => {
    const info = await readGgufMetadata(tiny);
    expect(info).toMatchObject({
      version: 3,
      architecture: 'llama',
      name: 'fairground-tiny-seed1',
      parameterCount: written.parameters,
      quantization: 'F16',
      fileType: 'MOSTLY_F16',
      contextLength: 512,
      embeddingLength: 64,
      layerCount: 2,
      headCount: 4,
      vocabSize: 1024,
      poolingType: 1,
      hasChatTemplate: true,
      tensorCount: 2 + 2 * 9 + 1,
      fileSize: written.bytes,
    });
    expect(info.parameterCount).toBeGreaterThan(200_000);
    expect(info.parametersByType.F32).toBe(64 * 5); // the 1-D norms
    expect(info.metadata['tokenizer.ggml.tokens']).toEqual({ arrayOf: 'string', length: 1024 });
    expect(info.dataOffset % 32).toBe(0);
  });

  it('is a pure function of the seed', async () => {
    const again = join(dir, 'again.gguf');
    const other = join(dir, 'other.gguf');
    await writeTinyGguf(again, { preset: 'tiny', seed: 1 });
    await writeTinyGguf(other, { preset: 'tiny', seed: 2 });
    expect(await sha256File(again)).toBe(await sha256File(tiny));
    expect(await sha256File(other)).not.toBe(await sha256File(tiny));
  });

  it('writes Q8_0 tensors the reader sizes correctly', async () => {
    const file = join(dir, 'q8.gguf');
    const meta = new Map([['general.architecture', kv.str('test')]]);
    await writeGguf(file, {
      kv: meta,
      tensors: [
        { name: 'a', dims: [64, 3], type: GgmlType.Q8_0, values: () => new Float32Array(192).fill(0.5) },
        { name: 'b', dims: [5], type: GgmlType.F32, values: () => new Float32Array(5) },
      ],
    });
    const info = await readGgufMetadata(file);
    expect(info.quantization).toBe('Q8_0');
    expect(info.parametersByType).toEqual({ Q8_0: 192, F32: 5 });
    // 6 blocks of 34 bytes padded to 224, then 20 bytes of F32.
    expect(info.fileSize).toBe(info.dataOffset + 224 + 32);
  });
});

describe('readGgufMetadata rejects broken files with a DataError naming the file', () => {
  it('wrong magic', async () => {
    const file = join(dir, 'notgguf.gguf');
    writeFileSync(file, 'PK\u0003\u0004 this is a zip file, not a model');
    await expectDataError(file, /not a GGUF file.*PK/);
  });

  it('empty file', async () => {
    const file = join(dir, 'empty.gguf');
    writeFileSync(file, '');
    await expectDataError(file, /not a GGUF file/);
  });

  it('truncated inside the metadata', async () => {
    const file = join(dir, 'cut-header.gguf');
    writeFileSync(file, readFileSync(tiny).subarray(0, 2000));
    await expectDataError(file, /truncated GGUF.*inside metadata/);
  });

  it('truncated inside the tensor data', async () => {
    const file = join(dir, 'cut-data.gguf');
    writeFileSync(file, readFileSync(tiny));
    truncateSync(file, written.bytes - 1000);
    await expectDataError(file, /truncated GGUF: the tensors need \d+ bytes but the file has \d+/);
  });

  it('unsupported version', async () => {
    const file = join(dir, 'v9.gguf');
    const bytes = Buffer.from(readFileSync(tiny));
    bytes.writeUInt32LE(9, 4);
    writeFileSync(file, bytes);
    await expectDataError(file, /unsupported GGUF version 9/);
  });

  it('missing file', async () => {
    await expectDataError(join(dir, 'nope.gguf'), /cannot open/);
  });
});

describe('sha256File', () => {
  it('matches a one-shot hash and reports progress up to the size', async () => {
    const seen: number[] = [];
    const hash = await sha256File(tiny, (p) => {
      expect(p.bytesTotal).toBe(written.bytes);
      seen.push(p.bytesDone);
    });
    expect(hash).toBe(createHash('sha256').update(readFileSync(tiny)).digest('hex'));
    expect(seen[seen.length - 1]).toBe(written.bytes);
  });
});
