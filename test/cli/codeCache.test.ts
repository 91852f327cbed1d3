/**
 * bin/codeCache.js (issue 25): where the code cache lives, what keys it, and what a damaged file reads as.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cacheFileBytes, codeCacheDir, codeCacheKey, parseCacheFile } from '../../bin/codeCache.js';

describe('the code cache', () => {
  it('lives in the per-user cache folder, or where FAIRGROUND_CODE_CACHE says, or nowhere', () => {
    expect(codeCacheDir({}, 'linux', '/home/u')).toBe('/home/u/.cache/fairground/code-cache');
    expect(codeCacheDir({ XDG_CACHE_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/fairground/code-cache');
    // XDG paths must be absolute; a relative one is ignored.
    expect(codeCacheDir({ XDG_CACHE_HOME: 'rel' }, 'linux', '/home/u')).toBe('/home/u/.cache/fairground/code-cache');
    expect(codeCacheDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Caches/Fairground/code-cache');
    expect(codeCacheDir({ FAIRGROUND_CODE_CACHE: '/c' }, 'linux', '/home/u')).toBe('/c');
    expect(codeCacheDir({ FAIRGROUND_CODE_CACHE: 'off' }, 'linux', '/home/u')).toBeNull();
    expect(codeCacheDir({ FAIRGROUND_CODE_CACHE: '0' }, 'linux', '/home/u')).toBeNull();
  });

  it('is keyed by every byte of the bundle (V8 itself compares only lengths) and by the V8 options', () => {
    const seed = randomBytes(4).readUInt32LE(0);
    console.log(`codeCache key seed ${seed}`);
    const bundle = Buffer.from(`exports.main = () => ${seed};\n`.repeat(50));
    const key = codeCacheKey(bundle, {});
    expect(key).toMatch(/^[0-9a-f]{40}$/);
    expect(codeCacheKey(Buffer.from(bundle), {})).toBe(key);
    const edited = Buffer.from(bundle);
    const at = seed % edited.length;
    edited[at] = edited[at] === 0x20 ? 0x09 : 0x20; // same length, one byte changed
    expect(codeCacheKey(edited, {})).not.toBe(key);
    expect(codeCacheKey(bundle, { NODE_OPTIONS: '--max-old-space-size=4096' })).not.toBe(key);
  });

  it('reads back what it wrote, and nothing from a damaged file', () => {
    const data = randomBytes(1000);
    expect(parseCacheFile(cacheFileBytes(data, true))).toEqual({ data, complete: true, afterRejection: false });
    expect(parseCacheFile(cacheFileBytes(data, false, true))).toEqual({ data, complete: false, afterRejection: true });
    const bytes = cacheFileBytes(data, true);
    for (const at of [0, 10, 41, 500, bytes.length - 1]) {
      const damaged = Buffer.from(bytes);
      damaged[at] = damaged[at]! ^ 1;
      // Byte 40 is the flags byte (complete / after a rejection), which no checksum covers and any value of which is valid.
      expect(parseCacheFile(damaged), `byte ${at}`).toBeNull();
    }
    expect(parseCacheFile(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(parseCacheFile(bytes.subarray(0, 41))).toBeNull();
    expect(parseCacheFile(Buffer.alloc(0))).toBeNull();
  });
});
