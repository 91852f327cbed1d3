/**
 * Issue 25 item 3: the staging's content hash JSON-escapes a long text slice by slice (1 Mi
 * characters at a time) instead of holding an escaped copy of it. The hash must be byte for byte the
 * one computed from the stored rows (computeContentHash, which escapes each text whole): here on
 * texts longer than a slice, with a surrogate pair straddling each slice boundary, quotes,
 * backslashes and control characters, in a document and in a query (a lone surrogate is refused at
 * import, so none reaches the hash).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { textSource } from '../../src-main/io/importers/source';
import { importIntoCollection } from '../../src-main/services/collectionsImport';
import { computeContentHash } from '../../src-main/store/collectionHash';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace } from '../../src-main/store/workspace';

const dir = mkdtempSync(join(tmpdir(), 'fg-staging-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SLICE = 1 << 20;

/** A text of about n characters whose code unit SLICE-1 (and 2·SLICE-1) is the high half of a pair. */
function awkward(n: number, seed: number): string {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ['a', 'é', '"', '\\', '\n', '\t', '\u0001', '😀', ' ', '\u2028'];
  let out = '';
  while (out.length < n) out += pieces[Math.floor(rnd() * pieces.length)]!;
  const chars = out.split('');
  for (const at of [SLICE - 1, 2 * SLICE - 1]) if (at + 1 < chars.length) chars.splice(at, 2, '\ud83d', '\ude00');
  return chars.join('');
}

describe('the staging content hash of texts longer than a slice', () => {
  it('equals the hash computed from the stored rows', async () => {
    const seed = 2511;
    console.log(`importStagingHash seed ${seed}`);
    const ws = openWorkspace(join(dir, 'w.fairground'));
    try {
      const repo = new CollectionsRepo(ws.db);
      const doc = awkward(2 * SLICE + 12345, seed);
      const query = awkward(SLICE + 7, seed + 1);
      expect(doc.charCodeAt(SLICE - 1)).toBe(0xd83d);
      const report = await importIntoCollection(repo, { name: 'long' }, [
        { kind: 'corpus', sources: [textSource('docs.jsonl', `${JSON.stringify({ id: 'd1', text: doc })}\n${JSON.stringify({ id: 'd2', text: 'short' })}\n`)] },
        { kind: 'queries', sources: [textSource('queries.jsonl', `${JSON.stringify({ id: 'q1', text: query })}\n`)] },
      ]);
      expect(report.created).toBe(true);
      expect(report.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
    } finally {
      ws.close();
    }
  }, 60_000);
});
