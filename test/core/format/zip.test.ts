/**
 * Issue 26 item 6: the stored ZIP the renderer downloads an export and its manifest in. Checked
 * against known CRC-32 values, the test reader, and the system's unzip and Python's zipfile when
 * installed (skipped, and said so, when not).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32, zipStored } from '../../../src-main/core/format/zip';
import { unzipEntries } from '../../support/zip';

const enc = new TextEncoder();
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

describe('zipStored', () => {
  it('CRC-32 of the check string and of nothing', () => {
    expect(crc32(enc.encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array())).toBe(0);
  });

  const entries = [
    { name: 'run1.table2.csv', data: enc.encode('condition,EE-D_norm_mean\nα=2,0.25\n') },
    { name: 'run1.table2.csv.manifest.json', data: enc.encode('{"export":{"file":"run1.table2.csv"}}\n') },
  ];

  it('writes entries a reader gets back byte for byte, deterministically', () => {
    const zip = zipStored(entries);
    expect(Buffer.from(zipStored(entries)).equals(Buffer.from(zip))).toBe(true);
    const back = unzipEntries(Buffer.from(zip));
    expect(back.map((e) => e.name)).toEqual(entries.map((e) => e.name));
    back.forEach((e, i) => expect(e.body.equals(Buffer.from(entries[i]!.data))).toBe(true));
    // 2 local headers (30 + name + data) + 2 central entries (46 + name) + 22.
    const size = entries.reduce((s, e) => s + 30 + 46 + 2 * e.name.length + e.data.length, 22);
    expect(zip.length).toBe(size);
  });

  it('refuses names that would escape the folder or repeat', () => {
    expect(() => zipStored([{ name: '../x', data: new Uint8Array() }])).toThrow(/without '\.\.'/);
    expect(() => zipStored([{ name: '/x', data: new Uint8Array() }])).toThrow(/relative/);
    expect(() => zipStored([entries[0]!, entries[0]!])).toThrow(/given twice/);
  });

  it.skipIf(!has('unzip') && !has('python3'))('unzip -t / Python zipfile read it (integrity and contents)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-zip-'));
    try {
      const file = join(dir, 'bundle.zip');
      writeFileSync(file, zipStored(entries));
      if (has('unzip')) {
        expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8' })).toContain('No errors detected');
        execFileSync('unzip', ['-q', file, '-d', join(dir, 'out')]);
        expect(readFileSync(join(dir, 'out', 'run1.table2.csv'), 'utf8')).toBe('condition,EE-D_norm_mean\nα=2,0.25\n');
      }
      if (has('python3')) {
        const py = `import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(z.namelist()[1]); print(z.read('run1.table2.csv').decode('utf8'), end='')`;
        expect(execFileSync('python3', ['-c', py, file], { encoding: 'utf8' })).toBe('run1.table2.csv.manifest.json\ncondition,EE-D_norm_mean\nα=2,0.25\n');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
