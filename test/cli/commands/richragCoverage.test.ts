/**
 * `fairground richrag coverage` on the hand-built pool of test/core/richrag/handPool.ts (fixture
 * test/fixtures/richrag/pool.json); the expected values are derived there and in silverList.test.ts.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../../../src-main/cli/commands/index';
import { richragCoverageCommand } from '../../../src-main/cli/commands/richragCoverage';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-richrag-coverage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync(new URL('../../fixtures/richrag/pool.json', import.meta.url), path.join(dir, 'pool.json'));

const POOL = {
  subanswers: ['alpha beta gamma delta', 'one two three'],
  docs: [
    { id: 'd0', text: 'delta gamma beta alpha' },
    { id: 'd1', text: 'alpha beta gamma one' },
    { id: 'd2', text: 'one two' },
    { id: 'd3', text: 'gamma delta' },
  ],
  k: 4,
};

let fileNo = 0;
function file(json: unknown): string {
  const name = `in${fileNo++}.json`;
  writeFileSync(path.join(dir, name), typeof json === 'string' ? json : JSON.stringify(json));
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // The command list is passed explicitly so a broken neighbour in index.ts cannot fail these tests.
  return runCliCaptured(['richrag', 'coverage', ...argv], { cwd: dir, commands: [richragCoverageCommand] });
}

interface Output {
  silver: string[];
  com_star: number;
  com?: number;
  ncom?: number | null;
}

async function ok(argv: string[]): Promise<Output> {
  const r = await cli(argv);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Output;
}

describe('fairground richrag coverage', () => {
  it('is registered', () => {
    expect(commands.some((c) => c.path.join(' ') === 'richrag coverage')).toBe(true);
  });

  it('default (code φ and weights): silver [d1, d2, d0, d3], COM* 3151/1848, COM 7/6, NCOM 2156/3151', async () => {
    const o = await ok(['--input', 'pool.json']);
    expect(Object.keys(o)).toEqual(['silver', 'com_star', 'com', 'ncom']);
    expect(o.silver).toEqual(['d1', 'd2', 'd0', 'd3']);
    expect(o.com_star).toBeCloseTo(3151 / 1848, 14);
    expect(o.com).toBeCloseTo(7 / 6, 14);
    expect(o.ncom).toBeCloseTo(2156 / 3151, 14);
  });

  it('--phi paper (code weights): silver [d1, d2, d3, d0], COM* 27677/24624, NCOM 15399/27677', async () => {
    const o = await ok(['--input', 'pool.json', '--phi', 'paper']);
    expect(o.silver).toEqual(['d1', 'd2', 'd3', 'd0']);
    expect(o.com_star).toBeCloseTo(27677 / 24624, 14);
    expect(o.com).toBeCloseTo(1711 / 2736, 14);
    expect(o.ncom).toBeCloseTo(15399 / 27677, 14);
  });

  it('--phi paper --weights paper: COM* 3553/2232, COM 17/24, NCOM 1581/3553', async () => {
    const o = await ok(['--input', 'pool.json', '--phi', 'paper', '--weights', 'paper']);
    expect(o.silver).toEqual(['d1', 'd2', 'd3', 'd0']);
    expect(o.com_star).toBeCloseTo(3553 / 2232, 14);
    expect(o.com).toBeCloseTo(17 / 24, 14);
    expect(o.ncom).toBeCloseTo(1581 / 3553, 14);
  });

  it('the silver list as ranking has NCOM 1; without a ranking com and ncom are absent', async () => {
    expect((await ok(['--input', file({ ...POOL, ranking: ['d1', 'd2', 'd0', 'd3'] })])).ncom).toBe(1);
    const none = await ok(['--input', file(POOL)]);
    expect(Object.keys(none)).toEqual(['silver', 'com_star']);
    expect((await ok(['--input', file({ ...POOL, ranking: null })])).com).toBeUndefined();
  });

  it('uses k for the silver length and the ranking cut; ncom null when nothing is covered', async () => {
    // k = 1: silver [d1] (gain 13/24); the ranking's d0 gains 1/2 → NCOM 12/13
    const k1 = await ok(['--input', file({ ...POOL, k: 1, ranking: ['d0', 'd3', 'd2'] })]);
    expect(k1.silver).toEqual(['d1']);
    expect(k1.ncom).toBeCloseTo(12 / 13, 14);
    const zero = await ok(['--input', file({ subanswers: ['x y'], docs: [{ id: 'a', text: 'u v' }, { id: 'b', text: 'w' }], k: 5, ranking: ['b'] })]);
    expect(zero).toEqual({ silver: ['a', 'b'], com_star: 0, com: 0, ncom: null });
  });

  it('scores "{title} {text}" when a document has a title', async () => {
    // d2 split as title "one" + text "two" is the same scored text "one two": same results as the fixture
    const docs = POOL.docs.map((d) => (d.id === 'd2' ? { id: 'd2', title: 'one', text: 'two' } : d));
    const o = await ok(['--input', file({ ...POOL, docs })]);
    expect(o.silver).toEqual(['d1', 'd2', 'd0', 'd3']);
    expect(o.com_star).toBeCloseTo(3151 / 1848, 14);
  });

  it.each([
    [{ ...POOL, ranking: ['d0', 'd1', 'd9'] }, "ranking[2]: unknown document id 'd9'"],
    [{ ...POOL, ranking: ['d0', 'd1', 'd0'] }, "ranking[2]: duplicate document id 'd0' (first at ranking[0])"],
    [{ ...POOL, docs: [...POOL.docs, { id: 'd1', text: 'again' }] }, "docs[4].id: duplicate document id 'd1' (first at docs[1])"],
    [{ ...POOL, k: 0 }, 'k: must be at least 1'],
    [{ ...POOL, k: 2.5 }, 'k: must be an integer'],
    [{ ...POOL, subanswers: [] }, 'subanswers: needs at least one sub-answer'],
    [{ ...POOL, subanswers: ['ok', '  '] }, 'subanswers[1]: must not be empty'],
    [{ ...POOL, docs: [{ id: '', text: 'x' }] }, 'docs[0].id: must not be empty'],
    [{ ...POOL, docs: [{ id: 'a', text: 3 }] }, 'docs[0].text: Invalid input: expected string, received number'],
    [{ ...POOL, extra: 1 }, 'Unrecognized key: "extra"'],
  ])('names the field: %#', async (json, message) => {
    const name = file(json);
    const r = await cli(['--input', name]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`fairground richrag coverage: ${name}: ${message}\n`);
  });

  it('reports bad JSON with its line, a missing file, and bad options', async () => {
    const bad = file('{\n  "k": 1\n  "docs": []\n}');
    expect((await cli(['--input', bad])).stderr).toBe(`fairground richrag coverage: ${bad}:3: invalid JSON: Expected ',' or '}' after property value (column 3)\n`);
    // V8 gives no position for an unexpected token: no line, and no echo of the text
    const token = file('{\n  "k": 1,\n  "docs": [,]\n}');
    expect((await cli(['--input', token])).stderr).toBe(`fairground richrag coverage: ${token}: invalid JSON: Unexpected token ','\n`);
    expect((await cli(['--input', 'missing.json'])).stderr).toBe('fairground richrag coverage: missing.json: cannot read file (ENOENT)\n');
    expect((await cli([])).stderr).toBe('fairground richrag coverage: missing required option --input\n');
    const r = await cli(['--input', 'pool.json', '--phi', 'mean']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("fairground richrag coverage: --phi: expected one of code, paper, got 'mean'\n");
    expect((await cli(['--input', 'pool.json', '--weights', 'x'])).stderr).toMatch(/--weights: expected one of code, paper/);
  });

  it('prints help', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: fairground richrag coverage --input POOL.json/);
  });
});
