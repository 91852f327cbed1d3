/**
 * Bad input to every importer (issue 10), through `fairground collection import` in-process: a
 * seeded mutation of a valid file either imports or fails with one stderr line naming the file and
 * line — and then the workspace is exactly as before (row counts, every collection's content hash
 * and sources, no leftover staging table, integrity check ok; a new collection is not created).
 * After a successful import the workspace is restored from a pristine copy.
 *
 * Also the upload path of browser mode (CollectionsService.importContents with base64 content):
 * a failure is a DataError, never another exception, and leaves the workspace unchanged.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { CollectionsService } from '../../src-main/services/collectionsService';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';
import { openWorkspace } from '../../src-main/store/workspace';
import { createMutator } from '../support/fuzz';
import { cli, contractProblems, fastTmpDir } from './cliHarness';
import { snapshotWorkspace, type WorkspaceSnapshot } from './workspaceSnapshot';

const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');
const CASES = Number(process.env.FUZZ_CASES ?? 150);
/** FUZZ_SEED=n shifts every seed: a longer local sweep finds what the fixed seeds do not. */
const SEED = Number(process.env.FUZZ_SEED ?? 0);

let dir: string;
let pristine: string;
let ws: string;
let before: WorkspaceSnapshot;

const fixture = (name: string) => readFileSync(join(FIX, name));

/** The JSON-array form of the JSON-lines corpus, to fuzz the streaming JSON reader too. */
const corpusJsonArray = () =>
  Buffer.from(
    `[\n${fixture('corpus.jsonl')
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => `  ${l}`)
      .join(',\n')}\n]\n`,
  );

interface ImportTarget {
  name: string;
  seed: number;
  kind: string;
  /** Collection the valid files were imported into (failures must leave it alone). */
  collection: string;
  valid: Buffer;
  /** Mutated file name (its extension picks the format). */
  ext: string;
  json?: 'document' | 'lines';
  /** Other (valid) files of the import, from the fixtures folder, and options. */
  others?: string[];
  options?: string[];
  /** Errors that rightly point at another file of the import (see contractProblems). */
  elsewhere?: RegExp;
}

const targets: ImportTarget[] = [
  { name: 'corpus JSON lines', seed: 201, kind: 'corpus', collection: 'c', valid: fixture('corpus.jsonl'), ext: 'jsonl', json: 'lines' },
  { name: 'corpus JSON array', seed: 202, kind: 'corpus', collection: 'c', valid: corpusJsonArray(), ext: 'json', json: 'document' },
  { name: 'corpus CSV', seed: 203, kind: 'corpus', collection: 'csv', valid: fixture('corpus.csv'), ext: 'csv', options: ['--id-column', 'doc', '--text-column', 'body', '--title-column', 'headline'] },
  { name: 'corpus TSV (no header)', seed: 204, kind: 'corpus', collection: 'ms', valid: fixture('collection.tsv'), ext: 'tsv', options: ['--no-header', '--id-column', '1', '--text-column', '2'] },
  { name: 'queries JSON lines', seed: 205, kind: 'queries', collection: 'c', valid: fixture('queries.jsonl'), ext: 'jsonl', json: 'lines' },
  { name: 'qrels', seed: 206, kind: 'qrels', collection: 'c', valid: fixture('qrels.txt'), ext: 'txt' },
  { name: 'LaMP questions', seed: 207, kind: 'lamp', collection: 'lamp', valid: fixture('lamp2_questions.json'), ext: 'json', json: 'document', others: ['lamp2_outputs.json'], elsewhere: /lamp2_outputs\.json:\d+: golds\.id: gold output for '[^']*', but no question has that id$/ },
  { name: 'LaMP outputs', seed: 208, kind: 'lamp', collection: 'lamp', valid: fixture('lamp2_outputs.json'), ext: 'json', json: 'document', others: ['lamp2_questions.json'], elsewhere: /lamp2_questions\.json:\d+: answers: query '[^']*' is already in the collection with different answers$/ },
  { name: 'MS MARCO collection', seed: 209, kind: 'msmarco', collection: 'ms', valid: fixture('collection.tsv'), ext: 'tsv', others: ['queries.dev.tsv', 'qrels.dev.tsv'] },
  { name: 'MS MARCO queries', seed: 210, kind: 'msmarco', collection: 'ms', valid: fixture('queries.dev.tsv'), ext: 'tsv', others: ['collection.tsv', 'qrels.dev.tsv'] },
  { name: 'MS MARCO qrels', seed: 211, kind: 'msmarco', collection: 'ms', valid: fixture('qrels.dev.tsv'), ext: 'tsv', others: ['collection.tsv', 'queries.dev.tsv'] },
  { name: 'Fair-RAG relevance mapping', seed: 212, kind: 'fairrag-mapping', collection: 'lamp', valid: fixture('lamp2_relevance_mapping.tsv'), ext: 'tsv', others: ['lamp2_delta.tsv'] },
  { name: 'Fair-RAG delta', seed: 213, kind: 'fairrag-mapping', collection: 'lamp', valid: fixture('lamp2_delta.tsv'), ext: 'tsv' },
];

beforeAll(async () => {
  dir = mkdtempSync(join(fastTmpDir(), 'fg-fuzz-import-'));
  pristine = join(dir, 'pristine.fairground');
  ws = join(dir, 'case.fairground');
  const imports: [string, string, string[], string[]][] = [
    ['corpus', 'c', ['corpus.jsonl'], []],
    ['queries', 'c', ['queries.jsonl'], []],
    ['qrels', 'c', ['qrels.txt'], []],
    ['corpus', 'csv', ['corpus.csv'], ['--id-column', 'doc', '--text-column', 'body', '--title-column', 'headline']],
    ['lamp', 'lamp', ['lamp2_questions.json', 'lamp2_outputs.json'], []],
    ['fairrag-mapping', 'lamp', ['lamp2_relevance_mapping.tsv', 'lamp2_delta.tsv'], []],
    ['msmarco', 'ms', ['collection.tsv', 'queries.dev.tsv', 'qrels.dev.tsv'], []],
  ];
  for (const [kind, name, files, options] of imports) {
    const r = await cli(['collection', 'import', '--kind', kind, '--name', name, '-w', pristine, ...options, ...files.map((f) => join(FIX, f))], dir);
    if (r.code !== 0) throw new Error(`setup import ${kind}: ${r.stderr}`);
  }
  before = snapshotWorkspace(pristine);
  restore();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function restore(): void {
  for (const suffix of ['-wal', '-shm']) if (existsSync(ws + suffix)) unlinkSync(ws + suffix);
  copyFileSync(pristine, ws);
}

describe('fuzzed imports: all or nothing, one clear line', () => {
  it('the pristine workspace is healthy and its stored content hashes are current', () => {
    expect(before.integrity).toBe('ok');
    expect(before.counts).toMatchObject({ collections: 4, stagingTables: 0 });
    for (const c of before.collections) expect(c.recomputed, c.name).toBe(c.stored);
  });

  for (const t of targets) {
    it(`${t.name}: ${CASES} seeded mutations (seed ${t.seed})`, async () => {
      const mutator = createMutator(t.seed + SEED, { hugeLineRate: 0.03 });
      const violations: string[] = [];
      let failed = 0;
      for (let i = 0; i < CASES; i++) {
        const c = mutator.next(t.valid, t.json ? { json: t.json } : {});
        const file = `${t.kind}-${t.seed}-${i}.${t.ext}`;
        writeFileSync(join(dir, file), c.bytes);
        // Half the cases import into the collection that holds the valid data, half into a new one.
        const collection = i % 2 === 0 ? t.collection : `new-${i}`;
        const argv = ['collection', 'import', '--kind', t.kind, '--name', collection, '-w', ws, ...(t.options ?? []), file, ...(t.others ?? []).map((f) => join(FIX, f))];
        const r = await cli(argv, dir);
        const label = `${t.name} #${i} [${c.name.slice(0, 100)}]`;
        const problems = contractProblems(r, { file, lineBased: true, wholeFile: /no (documents|queries|judgments|questions|rows)( in the (file|delta file))?$|the file is empty|invalid UTF-8|two (files look|LaMP|delta|relevance)|expected a relevance mapping .* columns$|expected LaMP (questions|outputs)|is not closed|: golds: missing$|expected a JSON array of objects, found an object$/, ...(t.elsewhere ? { elsewhere: t.elsewhere } : {}) });
        if (r.code === 0) {
          const after = snapshotWorkspace(ws);
          if (after.integrity !== 'ok') problems.push(`integrity after a successful import: ${after.integrity}`);
          restore();
        } else {
          failed++;
          const after = snapshotWorkspace(ws);
          if (JSON.stringify(after) !== JSON.stringify(before)) {
            problems.push(`the workspace changed: ${JSON.stringify(diff(before, after)).slice(0, 300)}`);
            restore();
          }
        }
        if (problems.length) violations.push(`${label}: ${problems.join('; ')} — exit ${r.code}, stderr: ${JSON.stringify(r.stderr.slice(0, 300))}`);
        rmSync(join(dir, file));
      }
      expect(failed, 'no case failed: the mutations do not reach the reader').toBeGreaterThan(0);
      expect(violations).toEqual([]);
    });
  }
});

function diff(a: WorkspaceSnapshot, b: WorkspaceSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.integrity !== b.integrity) out.integrity = b.integrity;
  for (const [k, v] of Object.entries(b.counts)) if (a.counts[k] !== v) out[k] = `${a.counts[k]} -> ${v}`;
  if (JSON.stringify(a.collections) !== JSON.stringify(b.collections)) out.collections = b.collections.map((c) => c.name);
  return out;
}

describe('fuzzed uploads (browser mode): a DataError or an import, never a half-write', () => {
  it(`corpus and LaMP uploads as base64: ${CASES} seeded mutations each`, async () => {
    restore();
    const w = openWorkspace(ws);
    const violations: string[] = [];
    try {
      const svc = new CollectionsService(w.db, new JobRunner(w.db, new EventBus()));
      const mutator = createMutator(301 + SEED, { hugeLineRate: 0.02 });
      const uploads: { kind: 'corpus' | 'lamp'; name: string; valid: Buffer; json: 'lines' | 'document'; others: string[] }[] = [
        { kind: 'corpus', name: 'upload.jsonl', valid: fixture('corpus.jsonl'), json: 'lines', others: [] },
        { kind: 'lamp', name: 'questions.json', valid: fixture('lamp2_questions.json'), json: 'document', others: ['lamp2_outputs.json'] },
      ];
      for (const u of uploads) {
        for (let i = 0; i < CASES; i++) {
          const c = mutator.next(u.valid, { json: u.json });
          const files = [{ name: u.name, content: c.bytes.toString('base64'), encoding: 'base64' as const }, ...u.others.map((f) => ({ name: f, content: fixture(f).toString('utf8') }))];
          const snap = snapshotWorkspace(ws);
          try {
            await svc.importContents({ collectionName: i % 2 ? 'lamp' : 'fresh' }, u.kind, files);
            w.db.prepare(`DELETE FROM collections WHERE name NOT IN ('c', 'csv', 'lamp', 'ms')`).run();
          } catch (err) {
            const label = `${u.kind} upload #${i} [${c.name.slice(0, 100)}]`;
            if (!(err instanceof DataError)) violations.push(`${label}: ${(err as Error).name}: ${(err as Error).message}`);
            else if (err.message.includes('\n')) violations.push(`${label}: a multi-line message`);
            else if (!err.message.startsWith(`${u.name}:`) && !u.others.some((f) => err.message.startsWith(`${f}:`)) && !/^files: /.test(err.message)) violations.push(`${label}: the error names no file: ${err.message}`);
            if (JSON.stringify(snapshotWorkspace(ws)) !== JSON.stringify(snap)) violations.push(`${label}: the workspace changed`);
          }
        }
      }
    } finally {
      w.close();
    }
    expect(violations).toEqual([]);
  });
});
