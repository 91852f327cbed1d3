import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-eval-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function file(lines: readonly string[], name = `pairs${fileNo++}.jsonl`): string {
  writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(['eval', 'text', ...argv], { cwd: dir });
}

const rows = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const pair = (id: unknown, prediction: unknown, references: unknown) => JSON.stringify({ id, prediction, references });
/** pltrdy's F. */
const plF = (p: number, r: number) => 2.0 * ((p * r) / (p + r + 1e-8));

describe('fairground eval text', () => {
  // q1: rouge.md headline pair. rouge-score: prediction tokens hello world it s a test (6), reference
  //     hello world its a test (5), 4 common: P 4/6, R 4/5, F 8/11; pltrdy: P = R = 0.4.
  // q2: "the cat" vs ["a dog", "the cat sat"]: rouge-score R1 best is ref 2: P 1, R 2/3, F 0.8;
  //     pltrdy: {the, cat} vs {the, cat, sat}: P 1, R 2/3.
  const ROUGE_PAIRS = [
    pair('q1', "Hello, world! It's a test.", ['hello world its a test']),
    '',
    '   ',
    pair(2, 'the cat', ['a dog', 'the cat sat']),
  ];

  it('prints P/R/F per id and the mean of F (rouge-score)', async () => {
    const { code, stdout, stderr } = await cli(['--metric', 'rouge1', '--input', file(ROUGE_PAIRS)]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [a, b, mean, ...rest] = rows(stdout);
    expect(rest).toEqual([]);
    expect(a).toMatchObject({ id: 'q1', recall: 0.8 });
    expect(a!.precision as number).toBeCloseTo(2 / 3, 15);
    expect(a!.f as number).toBeCloseTo(8 / 11, 15);
    expect(b).toMatchObject({ id: 2, precision: 1 }); // numeric id kept as a number
    expect(b!.f as number).toBeCloseTo(0.8, 15);
    expect(Object.keys(mean!)).toEqual(['mean']);
    expect(mean!.mean as number).toBeCloseTo((8 / 11 + 0.8) / 2, 15);
  });

  it('uses pltrdy semantics with --impl pltrdy', async () => {
    const { code, stdout } = await cli(['--metric', 'rouge1', '--impl', 'pltrdy', '--input', file(ROUGE_PAIRS)]);
    expect(code).toBe(0);
    const [a, b, mean] = rows(stdout);
    expect(a).toEqual({ id: 'q1', precision: 0.4, recall: 0.4, f: plF(0.4, 0.4) });
    expect(b!.f).toBe(plF(1, 2 / 3));
    expect(mean!.mean as number).toBeCloseTo((plF(0.4, 0.4) + plF(1, 2 / 3)) / 2, 15);
  });

  it('stems with --stem and computes rougeLsum over newline sentences', async () => {
    // Lin's example: R 4/5, P 4/10. With --stem "cats" = "cat" as well.
    const input = file([pair('lin', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', ['w1 w2 w3 w4 w5']), pair('stem', 'cats', ['cat'])]);
    const { code, stdout } = await cli(['--metric', 'rougeLsum', '--stem', '--input', input]);
    expect(code).toBe(0);
    const [lin, stem] = rows(stdout);
    expect(lin).toMatchObject({ id: 'lin', precision: 0.4, recall: 0.8 });
    expect(stem).toEqual({ id: 'stem', precision: 1, recall: 1, f: 1 });
  });

  it('prints value per id for f1, em and accuracy', async () => {
    const input = file([pair('a', 'The cat sat', ['cat']), pair('b', ' comedy ', ['comedy', 'drama'])]);
    // f1: a = "cat sat" vs "cat": P 1/2, R 1 -> 2/3; b: 1
    const f1 = rows((await cli(['--metric', 'f1', '--input', input])).stdout);
    expect(f1[0]!.value as number).toBeCloseTo(2 / 3, 15);
    expect(f1[1]).toEqual({ id: 'b', value: 1 });
    expect(f1[2]!.mean as number).toBeCloseTo(5 / 6, 15);
    // em: a 0, b 1 -> mean 0.5; accuracy: a 0 ("The cat sat" ≠ "cat"), b 1 after stripping
    expect(rows((await cli(['--metric', 'em', '--input', input])).stdout)).toEqual([{ id: 'a', value: 0 }, { id: 'b', value: 1 }, { mean: 0.5 }]);
    expect(rows((await cli(['--metric', 'accuracy', '--input', input])).stdout)).toEqual([
      { id: 'a', value: 0 },
      { id: 'b', value: 1 },
      { mean: 0.5 },
    ]);
  });

  it('prints absolute errors and MAE, squared errors and RMSE', async () => {
    // errors 1 (5 vs 4) and 3 (1 vs 4): MAE 2; squared 1 and 9: RMSE sqrt(5)
    const input = file([pair('r1', '5', ['4']), pair('r2', ' 1 ', ['4.0'])]);
    expect(rows((await cli(['--metric', 'mae', '--input', input])).stdout)).toEqual([{ id: 'r1', value: 1 }, { id: 'r2', value: 3 }, { mean: 2 }]);
    expect(rows((await cli(['--metric', 'rmse', '--input', input])).stdout)).toEqual([
      { id: 'r1', value: 1 },
      { id: 'r2', value: 9 },
      { mean: Math.sqrt(5) },
    ]);
  });

  it('prints a null mean for a file without pairs', async () => {
    const { code, stdout } = await cli(['--metric', 'f1', '--input', file(['', ' '])]);
    expect(code).toBe(0);
    expect(stdout).toBe('{"mean":null}\n');
  });

  describe('rejects malformed input naming file and line, printing nothing', () => {
    it.each([
      ['bad JSON', '{"id": "x", ', /pairs-bad JSON\.jsonl:3: invalid JSON/],
      ['not an object', '["x"]', /:3: expected a JSON object/],
      ['missing id', JSON.stringify({ prediction: 'p', references: ['r'] }), /:3: id: missing/],
      ['id of wrong type', pair(true, 'p', ['r']), /:3: id: expected a non-empty string or a number/],
      ['empty id', pair('', 'p', ['r']), /:3: id: expected a non-empty string/],
      ['duplicate id', pair('a', 'p', ['r']), /:3: id: duplicate id "a" \(first on line 1\)/],
      ['prediction not a string', pair('z', 5, ['r']), /:3: prediction: expected a string/],
      ['missing references', JSON.stringify({ id: 'z', prediction: 'p' }), /:3: references: missing/],
      ['references not an array', pair('z', 'p', 'r'), /:3: references: expected a non-empty array of strings/],
      ['empty references', pair('z', 'p', []), /:3: references: expected a non-empty array/],
      ['reference of wrong type', pair('z', 'p', ['r', 7]), /:3: references\[1\]: expected a string/],
    ])('%s', async (name, badLine, message) => {
      // line 1 and 2 are valid; the bad one is line 3
      const input = file([pair('a', 'the cat', ['the cat']), pair('b', 'x', ['y']), badLine], `pairs-${name}.jsonl`);
      const { code, stdout, stderr } = await cli(['--metric', 'rouge1', '--input', input]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(message);
      expect(stderr).toMatch(/^fairground eval text: pairs-/);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    });

    it('a non-numeric value for mae, after valid lines', async () => {
      const input = file([pair('a', '4', ['4']), '', pair('b', 'four', ['4'])]);
      const { code, stdout, stderr } = await cli(['--metric', 'mae', '--input', input]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/:3: prediction: expected a number, got "four"/);
    });

    it('a non-numeric reference and a second reference for rmse', async () => {
      const bad = await cli(['--metric', 'rmse', '--input', file([pair('a', '4', ['x'])])]);
      expect(bad.stderr).toMatch(/:1: references\[0\]: expected a number, got "x"/);
      const two = await cli(['--metric', 'rmse', '--input', file([pair('a', '4', ['4', '5'])])]);
      expect(two.stderr).toMatch(/:1: references: mae\/rmse need exactly one reference, got 2/);
      expect(two.stdout).toBe('');
    });

    it('invalid UTF-8', async () => {
      writeFileSync(path.join(dir, 'latin1.jsonl'), Buffer.concat([Buffer.from(pair('a', 'x', ['y']) + '\n'), Buffer.from([0x7b, 0xe9, 0x7d, 0x0a])]));
      const { code, stdout, stderr } = await cli(['--metric', 'f1', '--input', 'latin1.jsonl']);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/latin1\.jsonl:2: invalid UTF-8/);
    });
  });

  describe('rejects bad options', () => {
    const input = () => file([pair('a', 'x', ['y'])]);
    it.each([
      [['--input', 'x.jsonl'], /missing required option --metric/],
      [['--metric', 'bleu', '--input', 'x.jsonl'], /unknown metric 'bleu'/],
      [['--metric', 'rouge1'], /missing required option --input/],
      [['--metric', 'rouge1', '--impl', 'hf', '--input', 'x.jsonl'], /unknown implementation 'hf'/],
      [['--metric', 'rougeLsum', '--impl', 'pltrdy', '--input', 'x.jsonl'], /pltrdy has no rougeLsum/],
      [['--metric', 'rouge2', '--impl', 'pltrdy', '--stem', '--input', 'x.jsonl'], /pltrdy ROUGE never stems/],
      [['--metric', 'f1', '--stem', '--input', 'x.jsonl'], /f1 does not stem/],
      [['--metric', 'mae', '--impl', 'pltrdy', '--input', 'x.jsonl'], /mae is not a ROUGE measure/],
      [['--metric', 'f1', '--bogus', '--input', 'x.jsonl'], /bogus/],
    ])('%j', async (argv, message) => {
      const { code, stdout, stderr } = await cli(argv);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(message);
    });

    it('a missing input file', async () => {
      input();
      const { code, stderr } = await cli(['--metric', 'f1', '--input', 'nope.jsonl']);
      expect(code).toBe(2);
      expect(stderr).toMatch(/nope\.jsonl: cannot read file \(ENOENT\)/);
    });
  });

  it('has help with the metrics, the mean rule and an example', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: fairground eval text --metric/);
    expect(stdout).toMatch(/mean = the mean of f/);
    expect(stdout).toMatch(/sqrt\(mean of value\) = RMSE/);
    expect(stdout).toMatch(/Example:/);
  });

  it('the help example prints what it says', async () => {
    const input = file(['{"id": "q1", "prediction": "The cat sat.", "references": ["The cat sat on the mat."]}'], 'pairs.jsonl');
    const { stdout } = await cli(['--metric', 'rougeL', '--impl', 'pltrdy', '--input', input]);
    const help = (await cli(['--help'])).stdout;
    for (const line of stdout.trim().split('\n')) expect(help).toContain(`  ${line}\n`);
    const rs = rows((await cli(['--metric', 'rougeL', '--input', input])).stdout);
    expect(help).toContain(`f = ${rs[0]!.f as number} for the same pair`);
  });
});

describe('eval text input from a pipe (#16.4)', () => {
  it("reads '-' (standard input)", async () => {
    const { runCliCaptured } = await import('../../support/cli');
    const r = await runCliCaptured(['eval', 'text', '--metric', 'em', '--input', '-'], { cwd: process.cwd(), stdin: '{"id": "q1", "prediction": "Paris", "references": ["paris"]}\n' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toMatchObject([{ id: 'q1', value: 1 }, { mean: 1 }]);
  });
});
