/**
 * Never write into a damaged workspace (issue 15 item 2). Two bytes flipped in a b-tree page of a
 * table (documents, queries, judgments, retrieval results — as the attack flipped them in a
 * run_items page): every command that writes refuses with one line saying the file is damaged and
 * was not modified, and the bytes stay as they were; `workspace check` names the damage. A row
 * edited behind Fairground's back (the content hash no longer matches) is reported by the check.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { cli, fastTmpDir } from './cliHarness';

let dir: string;
let clean: string;
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

beforeAll(async () => {
  dir = mkdtempSync(join(fastTmpDir(), 'fg-corrupt-'));
  clean = join(dir, 'clean.fairground');
  const s = createAppServices(clean, { transport: 'http' });
  await loadDemoCollection(s);
  const job = s.retrieval.startRun({ collectionId: 1, method: 'bm25', name: 'bm25', k: 20 } as never);
  await s.jobs.wait(job.id);
  await s.close(); // checkpoints: the file holds everything, no WAL
  writeFileSync(join(dir, 'docs.jsonl'), '{"id": "new1", "text": "one more document"}\n');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the clean workspace with two bytes of a leaf page of `table` flipped (its page header: cell count). */
function damagedCopy(table: string): string {
  const copy = join(dir, `${table}.fairground`);
  copyFileSync(clean, copy);
  const db = new Database(copy, { readonly: true });
  const page = db.prepare(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1`).get(table) as { pageno: number } | undefined;
  const size = db.pragma('page_size', { simple: true }) as number;
  db.close();
  if (!page) throw new Error(`no leaf page of ${table}`);
  const bytes = readFileSync(copy);
  const at = (page.pageno - 1) * size + (page.pageno === 1 ? 100 : 0);
  bytes[at + 3]! ^= 0xff; // number of cells, high byte
  bytes[at + 5]! ^= 0xff; // start of the cell content area
  writeFileSync(copy, bytes);
  return copy;
}

describe('a damaged workspace is never written', () => {
  for (const table of ['documents', 'queries', 'judgments', 'retrieval_results']) {
    it(`two flipped bytes in a ${table} page: writers refuse with one line, the bytes stay, the check names it`, async () => {
      const ws = damagedCopy(table);
      const before = sha(ws);
      const writers = [
        ['run', join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), '--workspace', ws],
        ['collection', 'import', '--kind', 'corpus', '--name', 'Fairground demo', join(dir, 'docs.jsonl'), '--workspace', ws],
        ['retrieve', '--collection', 'Fairground demo', '--method', 'bm25', '--workspace', ws],
        ['workspace', 'migrate', '--workspace', ws],
      ];
      for (const argv of writers) {
        const r = await cli(argv, dir);
        expect(r.code, `${argv.join(' ')}: ${r.stderr}`).not.toBe(0);
        expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
        expect(r.stderr, argv.join(' ')).toContain(`${ws} is damaged (`);
        expect(r.stderr, argv.join(' ')).toContain('it was not modified');
        expect(sha(ws), `${argv.join(' ')} changed the file`).toBe(before);
      }
      const check = await cli(['workspace', 'check', '--workspace', ws], dir);
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/^problem: /m);
    });
  }

  it('the clean workspace opens, and a row edited behind its back is reported by the check (content hash)', async () => {
    const ws = join(dir, 'edited.fairground');
    copyFileSync(clean, ws);
    expect((await cli(['workspace', 'check', '--workspace', ws], dir)).stdout).toMatch(/^ok: /);
    const db = new Database(ws);
    db.prepare(`UPDATE documents SET text = 'edited by hand' WHERE rowid = (SELECT min(rowid) FROM documents)`).run();
    db.close();
    const check = await cli(['workspace', 'check', '--workspace', ws], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/problem: collection 'Fairground demo': its rows no longer match its content hash \(stored [0-9a-f]{12}…, computed [0-9a-f]{12}…\)/);
  });
});
