/**
 * Bad input to the experiment-side commands that read files (issue 10): conversations JSONL and
 * attribute-set JSON (`fairground conversation import`, one transaction: a failure leaves every
 * table as it was) and experiment specs in JSON and YAML (`fairground run`, against a workspace
 * without the spec's collection and model, so a spec that parses fails fast instead of running).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { loadVectorExtension } from '../../src-main/store/workspace';
import { createMutator } from '../support/fuzz';
import { cli, contractProblems, fastTmpDir, fuzzCli, type FuzzTarget } from './cliHarness';

const CASES = Number(process.env.FUZZ_CASES ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 0);
const FIX = join(process.cwd(), 'test', 'fixtures');

let dir: string;
const conversations = readFileSync(join(FIX, 'conversations', 'e2e.jsonl'));
const attributeSets = Buffer.from(
  JSON.stringify(
    [{ name: 'SIDE', kind: 'nominal', groups: ['left', 'right'], target: [0.4, 0.6], measure: 'jsd' }],
    null,
    2,
  ),
);
/** The minimal spec, pointed at a collection and a model the workspace does not have. */
const specObject = { ...(parseYaml(readFileSync(join(FIX, 'experiments', 'minimal-spec.yaml'), 'utf8')) as Record<string, unknown>), collection: 'fuzz-missing', generator: { model: 'fuzz-missing-model' } };

/** Row counts of every ordinary table: a failed import must leave all of them alone. */
function tableCounts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    loadVectorExtension(db);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
    return Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number)]));
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(fastTmpDir(), 'fg-fuzz-exp-'));
  writeFileSync(join(dir, 'conv.jsonl'), conversations);
  writeFileSync(join(dir, 'attrs.json'), attributeSets);
  const r = await cli(['conversation', 'import', 'conv.jsonl', '--set', 'base', '-w', 'pristine.fairground'], dir);
  if (r.code !== 0) throw new Error(r.stderr);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fuzzed conversation imports: all or nothing, one clear line', () => {
  for (const [name, seed, intoExisting] of [
    ['into the existing set', 801, true],
    ['into a new set', 802, false],
  ] as const) {
    it(`conversations JSONL ${name}: ${CASES} seeded mutations`, async () => {
      const ws = join(dir, 'case.fairground');
      const restore = () => {
        for (const s of ['-wal', '-shm']) if (existsSync(ws + s)) unlinkSync(ws + s);
        copyFileSync(join(dir, 'pristine.fairground'), ws);
      };
      restore();
      const before = tableCounts(ws);
      const mutator = createMutator(seed + SEED);
      const violations: string[] = [];
      let failed = 0;
      for (let i = 0; i < CASES; i++) {
        const c = mutator.next(conversations, { json: 'lines' });
        const file = `conv-${seed}-${i}.jsonl`;
        writeFileSync(join(dir, file), c.bytes);
        const r = await cli(['conversation', 'import', file, '--set', intoExisting ? 'base' : `new-${i}`, '-w', ws], dir);
        const problems = contractProblems(r, { file, lineBased: true, wholeFile: /invalid UTF-8|no conversations|is empty/ });
        if (r.code !== 0) {
          failed++;
          const after = tableCounts(ws);
          if (JSON.stringify(after) !== JSON.stringify(before)) problems.push(`tables changed: ${JSON.stringify(Object.fromEntries(Object.entries(after).filter(([k, v]) => before[k] !== v)))}`);
        }
        if (r.code === 0 || problems.length) restore();
        if (problems.length) violations.push(`#${i} [${c.name.slice(0, 100)}]: ${problems.join('; ')} — exit ${r.code}, stderr: ${JSON.stringify(r.stderr.slice(0, 300))}`);
        rmSync(join(dir, file));
      }
      expect(failed).toBeGreaterThan(0);
      expect(violations).toEqual([]);
    });
  }
});

const targets: FuzzTarget[] = [
  {
    name: 'conversation import --attributes',
    seed: 811,
    cases: CASES,
    valid: attributeSets,
    json: 'document',
    fileName: (i) => `attrs-${i}.json`,
    argv: (f) => ['conversation', 'import', 'conv.jsonl', '--set', 'attrs', '--attributes', f, '-w', 'attrs.fairground'],
    // Attribute sets the conversations do not fit are reported at the conversation line; a set
    // that is wrong in itself is named by its index ("attributeSets[1].target: …"), not by the
    // file (reported: the message could name the --attributes file).
    check: { lineBased: false, elsewhere: /^fairground conversation import: (\S*conv\.jsonl:\d+: |attributeSets\[\d+\]\.)/ },
  },
  {
    name: 'run SPEC.json',
    seed: 821,
    cases: CASES,
    valid: JSON.stringify(specObject, null, 2),
    json: 'document',
    fileName: (i) => `spec-${i}.json`,
    argv: (f) => ['run', f, '-w', 'run.fairground'],
    // A spec that parses runs and fails on the missing collection or model: exit 1, after progress lines.
    check: { lineBased: false, progressLines: true, elsewhere: /^fairground run: run \d+ failed: / },
  },
  {
    name: 'run SPEC.yaml',
    seed: 822,
    cases: CASES,
    valid: stringify(specObject),
    fileName: (i) => `spec-${i}.yaml`,
    argv: (f) => ['run', f, '-w', 'run.fairground'],
    // YAML syntax errors name their line; spec validation errors name the field instead.
    check: { lineBased: true, wholeFile: /^(?!.*: invalid YAML: )/, progressLines: true, elsewhere: /^fairground run: run \d+ failed: / },
  },
];

describe('fuzzed attribute sets and experiment specs: success or one clear line', () => {
  it('the valid inputs get past their readers', async () => {
    writeFileSync(join(dir, 'valid-attrs.json'), attributeSets);
    expect((await cli(['conversation', 'import', 'conv.jsonl', '--set', 'valid', '--attributes', 'valid-attrs.json', '-w', 'valid.fairground'], dir)).stderr).toBe('');
    for (const t of targets.slice(1)) {
      writeFileSync(join(dir, t.fileName(-1)), t.valid);
      // The spec parses and validates; the run then stops before starting, naming the missing collection and model.
      expect((await cli(t.argv(t.fileName(-1)), dir)).stderr).toMatch(/^fairground run: spec--1\.(json|yaml): collection: no collection named 'fuzz-missing' .*generator: no model named 'fuzz-missing-model'/);
    }
  });

  for (const t of targets) {
    it(`${t.name}: ${t.cases} seeded mutations (seed ${t.seed})`, async () => {
      const outcome = await fuzzCli(dir, { ...t, seed: t.seed + SEED });
      expect(outcome.failed).toBeGreaterThan(0);
      expect(outcome.violations).toEqual([]);
    });
  }
});
