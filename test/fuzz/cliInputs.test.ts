/**
 * Bad input to every `fairground` command that reads files (issue 10): seeded mutations of valid
 * inputs either succeed or fail with one stderr line naming the file (and the line, for line-based
 * formats), exit code 2 — never an uncaught exception, a stack trace or a hang.
 * A failing case is reproduced by its target's seed and case number.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, fuzzCli, type FuzzTarget } from './cliHarness';

const FIXTURES = join(process.cwd(), 'test', 'fixtures');
const CASES = Number(process.env.FUZZ_CASES ?? 200);
/** FUZZ_SEED=n shifts every seed: a longer local sweep finds what the fixed seeds do not. */
const SEED = Number(process.env.FUZZ_SEED ?? 0);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-fuzz-cli-'));
  for (const [name, text] of Object.entries(VALID)) writeFileSync(join(dir, name), text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUN = ['# a comment', 'q1 Q0 d1 1 3.0 bm25', 'q1 Q0 d2 2 2.0 bm25', 'q1 Q0 d3 3 2.0 bm25', 'q2 Q0 d1 1 1.5 bm25', 'q2 Q0 d4 2 0.5 bm25', 'q3 Q0 d2 1 9 bm25', ''].join('\n');
const RUN_TSV = ['qid\tsample\tdocno\trank\tsim\trun_id', 'q1\t0\td1\t1\t3.0\tbm25', 'q1\t0\td2\t2\t2.0\tbm25', 'q2\t0\td4\t1\t0.5\t', ''].join('\n');
const QRELS = ['q1 0 d1 1', 'q1 0 d3 2', 'q1 0 d2 0', 'q2 0 d4 1', 'q3 0 d5 1', ''].join('\n');
const MAPPING = ['qid\tpid\trelevance_label', 'q1\td1\t1', 'q1\td3\t2', 'q2\td4\t1', ''].join('\n');
const STOCHASTIC = ['q1 Q0 a 1 2 pl', 'q1 Q0 b 2 1 pl', 'q1 Q1 c 1 2 pl', 'q1 Q1 a 2 1 pl', 'q2 Q0 b 1 2 pl', 'q2 Q0 a 2 1 pl', 'q2 Q1 a 1 2 pl', 'q2 Q1 c 2 1 pl', ''].join('\n');
const UTILITY = ['q1 0 a 1', 'q1 0 b 0', 'q1 0 c 1', 'q2 0 a 1', 'q2 0 b 1', 'q2 0 c 0', ''].join('\n');
const NLI = ['q1 Q0 a 1', 'q1 Q0 b 0', 'q1 Q1 c 1', 'q1 Q1 a 0', 'q2 Q0 b 1', 'q2 Q0 a 1', 'q2 Q1 a 0', 'q2 Q1 c 0', ''].join('\n');
const PAIRS = [
  JSON.stringify({ id: 'q1', prediction: 'The cat sat.', references: ['The cat sat on the mat.'] }),
  JSON.stringify({ id: 2, prediction: '3.5', references: ['4'] }),
  JSON.stringify({ id: 'q3', prediction: 'a b c', references: ['a', 'b c d'] }),
  '',
].join('\n');
const SCORES_A = ['# per-query nDCG@10', 'q1 0.50', 'q2 0.25', 'q3 0.75', 'q4 0.10', 'q5 0.9', ''].join('\n');
const SCORES_B = ['q1 0.55', 'q2 0.20', 'q3 0.80', 'q4 0.30', 'q5 0.95', ''].join('\n');

const VALID: Record<string, string> = {
  'run.trec': RUN,
  'qrels.txt': QRELS,
  'stochastic.trec': STOCHASTIC,
  'utility.qrels': UTILITY,
  'nli.txt': NLI,
  'a.txt': SCORES_A,
  'b.txt': SCORES_B,
};

const fixture = (p: string) => readFileSync(join(FIXTURES, p));

const targets: FuzzTarget[] = [
  {
    name: 'eval ir --run (trec)',
    seed: 101,
    cases: CASES,
    valid: RUN,
    fileName: (i) => `ir-run-${i}.trec`,
    argv: (f) => ['eval', 'ir', '--run', f, '--qrels', 'qrels.txt', '-m', 'nDCG@10', '-m', 'AP', '-q'],
    check: { lineBased: true, wholeFile: /invalid UTF-8|ir_metadata/ },
  },
  {
    name: 'eval ir --run (tsv)',
    seed: 102,
    cases: CASES,
    valid: RUN_TSV,
    fileName: (i) => `ir-tsv-${i}.tsv`,
    argv: (f) => ['eval', 'ir', '--run', f, '--qrels', 'qrels.txt', '-m', 'P@2'],
    check: { lineBased: true, wholeFile: /invalid UTF-8|ir_metadata/ },
  },
  {
    name: 'eval ir --qrels (trec)',
    seed: 103,
    cases: CASES,
    valid: QRELS,
    fileName: (i) => `ir-qrels-${i}.txt`,
    argv: (f) => ['eval', 'ir', '--run', 'run.trec', '--qrels', f, '-m', 'nDCG@10', '--csv'],
    check: { lineBased: true, wholeFile: /no relevance judgements|invalid UTF-8/ },
  },
  {
    name: 'eval ir --qrels (relevance mapping)',
    seed: 104,
    cases: CASES,
    valid: MAPPING,
    fileName: (i) => `ir-mapping-${i}.tsv`,
    argv: (f) => ['eval', 'ir', '--run', 'run.trec', '--qrels', f, '-m', 'RR'],
    check: { lineBased: true, wholeFile: /no relevance judgements|invalid UTF-8/ },
  },
  {
    name: 'eval exposure --run',
    seed: 111,
    cases: CASES,
    valid: STOCHASTIC,
    fileName: (i) => `ee-run-${i}.trec`,
    argv: (f) => ['eval', 'exposure', '--run', f, '--qrels', 'utility.qrels', '-k', '2', '-q'],
    check: { lineBased: true, wholeFile: /holds no rankings|invalid UTF-8/ },
  },
  {
    name: 'eval exposure --qrels',
    seed: 112,
    cases: CASES,
    valid: UTILITY,
    fileName: (i) => `ee-qrels-${i}.txt`,
    argv: (f) => ['eval', 'exposure', '--run', 'stochastic.trec', '--qrels', f, '-k', '2', '--target', 'code'],
    // A candidate missing from the qrels is reported at the run line that ranks it.
    check: { lineBased: true, wholeFile: /invalid UTF-8/, elsewhere: /: stochastic\.trec:\d+: (docno|qid): (document|query) '[^']*' (of query '[^']*' )?is not in the qrels/ },
  },
  {
    name: 'eval exposure --attribution',
    seed: 113,
    cases: CASES,
    valid: NLI,
    fileName: (i) => `ee-nli-${i}.txt`,
    argv: (f) => ['eval', 'exposure', '--run', 'stochastic.trec', '--qrels', 'utility.qrels', '-k', '2', '--attribution', f],
    // A missing label has no line in the labels file: the error names the run line that needs it.
    check: { lineBased: true, wholeFile: /invalid UTF-8|stochastic\.trec:\d+: no attribution label in / },
  },
  {
    name: 'eval text --input',
    seed: 121,
    cases: CASES,
    valid: PAIRS,
    json: 'lines',
    fileName: (i) => `pairs-${i}.jsonl`,
    argv: (f) => ['eval', 'text', '--metric', 'rougeL', '--input', f],
    check: { lineBased: true },
  },
  {
    name: 'eval text --input (rmse)',
    seed: 122,
    cases: Math.round(CASES / 2),
    valid: PAIRS.split('\n').filter((l) => l.includes('"3.5"')).join('\n'),
    json: 'lines',
    fileName: (i) => `pairs-num-${i}.jsonl`,
    argv: (f) => ['eval', 'text', '--metric', 'rmse', '--input', f],
    check: { lineBased: true },
  },
  {
    name: 'eval gfrc2 --input (nuggets)',
    seed: 131,
    cases: CASES,
    valid: fixture('gfrc/r112-copwa-nuggets.json'),
    json: 'document',
    fileName: (i) => `gfrc-n-${i}.json`,
    argv: (f) => ['eval', 'gfrc2', '--input', f],
    check: { lineBased: false },
  },
  {
    name: 'eval gfrc2 --input (conversation)',
    seed: 132,
    cases: CASES,
    valid: fixture('gfrc/r112-org-conversation.json'),
    json: 'document',
    fileName: (i) => `gfrc-c-${i}.json`,
    argv: (f) => ['eval', 'gfrc2', '--input', f, '--r-variant', 'eq7'],
    check: { lineBased: false },
  },
  {
    name: 'stats compare --a (paired)',
    seed: 141,
    cases: CASES,
    valid: SCORES_A,
    fileName: (i) => `scores-${i}.txt`,
    argv: (f) => ['stats', 'compare', '--a', f, '--b', 'b.txt', '--paired', '--missing', 'drop', '--test', 'randomization', '--permutations', '200'],
    // "query ids differ" and "needs at least 2 queries" concern both files, not a line.
    check: { lineBased: true, wholeFile: /no scores|invalid UTF-8/, elsewhere: /^fairground stats compare: a paired comparison needs at least 2 queries in both / },
  },
  {
    name: 'stats compare --b (unpaired)',
    seed: 142,
    cases: CASES,
    valid: SCORES_B,
    fileName: (i) => `scores-b-${i}.txt`,
    argv: (f) => ['stats', 'compare', '--a', 'a.txt', '--b', f, '--welch'],
    // Too few values for the test is about the sample --b holds, named as "b".
    check: { lineBased: true, wholeFile: /no scores|invalid UTF-8|needs at least 2 scores in each file/ },
  },
  {
    name: 'sample --run',
    seed: 151,
    cases: CASES,
    valid: RUN,
    fileName: (i) => `sample-run-${i}.trec`,
    argv: (f) => ['sample', '--run', f, '--alpha', '2', '--samples', '5', '-k', '2', '--seed', '7'],
    check: { lineBased: true, wholeFile: /invalid UTF-8|ir_metadata/ },
  },
  {
    name: 'moi solve --input',
    seed: 161,
    cases: CASES,
    valid: fixture('moi/planted-n5-random3n.json'),
    json: 'document',
    fileName: (i) => `moi-${i}.json`,
    argv: (f) => ['moi', 'solve', '--input', f],
    check: { lineBased: false },
  },
  {
    name: 'richrag coverage --input',
    seed: 171,
    cases: CASES,
    valid: fixture('richrag/pool.json'),
    json: 'document',
    fileName: (i) => `pool-${i}.json`,
    argv: (f) => ['richrag', 'coverage', '--input', f, '--phi', 'paper'],
    check: { lineBased: false },
    // A 2 MB document makes pltrdy's ROUGE-L quadratic in the sub-answer length only; keep a few.
    hugeLineRate: 0.02,
  },
];

describe('fuzzed CLI inputs: success or one clear line', () => {
  it('the valid inputs succeed (so the mutations start from working files)', async () => {
    const copies: Record<string, string> = { 'v.trec': RUN, 'v.tsv': RUN_TSV, 'v.jsonl': PAIRS, 'm.tsv': MAPPING };
    for (const [n, t] of Object.entries(copies)) writeFileSync(join(dir, n), t);
    for (const t of targets) {
      const name = t.fileName(-1);
      writeFileSync(join(dir, name), t.valid);
      const r = await cli(t.argv(name), dir);
      expect({ target: t.name, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    }
  });

  for (const t of targets) {
    it(`${t.name}: ${t.cases} seeded mutations (seed ${t.seed})`, async () => {
      const outcome = await fuzzCli(dir, { ...t, seed: t.seed + SEED });
      // Both outcomes must occur, or the mutations are not exercising the reader.
      expect(outcome.failed, `${t.name}: no case failed`).toBeGreaterThan(0);
      expect(outcome.violations).toEqual([]);
    });
  }
});
