import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256File as downloadHash } from '../../src-main/engine/download/partialFile';
import { sha256File } from '../../src-main/engine/gguf/sha256File';

describe('one streaming sha256File (#16.9)', () => {
  it('serves downloads and model identity alike (FIPS 180-2 test vector "abc")', async () => {
    expect(downloadHash).toBe(sha256File);
    const dir = mkdtempSync(join(tmpdir(), 'fg-sha-'));
    try {
      writeFileSync(join(dir, 'abc'), 'abc');
      expect(await sha256File(join(dir, 'abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
