/**
 * `fairground eval gfrc2` against the R112 fixtures (Sakai, Tao & Song 2025, Tables 1, 2, 3 and 5).
 * Every value is compared as the text it rounds to at the paper's printed 6 decimals. The fixtures use
 * PRONOUN target 1/3 (config A of reference note gfrc.md §4), under which every printed cell the CLI
 * outputs is reproduced, the Table 2 Experience at wc = 45 (0.426355) included.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../../../src-main/cli/commands/index';
import { evalGfrc2Command } from '../../../src-main/cli/commands/evalGfrc2';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-eval-gfrc2-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => {
  copyFileSync(new URL(`../../fixtures/gfrc/${name}`, import.meta.url), path.join(dir, name));
  return name;
};
const COPWA = fixture('r112-copwa-nuggets.json');
const ORG = fixture('r112-org-conversation.json');

let fileNo = 0;
function file(json: unknown): string {
  const name = `in${fileNo++}.json`;
  writeFileSync(path.join(dir, name), typeof json === 'string' ? json : JSON.stringify(json));
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // The command list is passed explicitly so a broken neighbour in index.ts cannot fail these tests.
  return runCliCaptured(['eval', 'gfrc2', ...argv], { cwd: dir, commands: [evalGfrc2Command] });
}

interface Output {
  clusters: { wc: number; GWCrel: number; WCnonrel: number; GNP: number; DistrSim: Record<string, number>; Experience: number }[];
  EGNP: number;
  EGF: Record<string, number>;
  GFRC2: number;
  GFRC: { R: number; GF: Record<string, number>; GFRC: number };
}

const p6 = (x: number) => x.toFixed(6);
const clusterRows = (o: Output) => o.clusters.map((c) => [c.wc, c.GWCrel, c.WCnonrel, p6(c.GNP), p6(c.DistrSim.PRONOUN!), p6(c.DistrSim.HINDEX!), p6(c.Experience)]);
const summary = (o: Output) => [o.EGNP, o.EGF.PRONOUN!, o.EGF.HINDEX!, o.GFRC2, o.GFRC.R, o.GFRC.GF.PRONOUN!, o.GFRC.GF.HINDEX!, o.GFRC.GFRC].map(p6);

describe('fairground eval gfrc2', () => {
  it('is registered', () => {
    expect(commands.some((c) => c.path.join(' ') === 'eval gfrc2')).toBe(true);
  });

  it('COPWA in nugget form: Table 1 rows, Table 3 and Table 5 as one JSON object', async () => {
    const { code, stdout, stderr } = await cli(['--input', COPWA]);
    expect([code, stderr]).toEqual([0, '']);
    const o = JSON.parse(stdout) as Output;
    expect(Object.keys(o)).toEqual(['clusters', 'EGNP', 'EGF', 'GFRC2', 'GFRC']);
    expect(Object.keys(o.clusters[0]!)).toEqual(['wc', 'GWCrel', 'WCnonrel', 'GNP', 'DistrSim', 'Experience']);
    expect(Object.keys(o.GFRC)).toEqual(['R', 'GF', 'GFRC']);
    expect(clusterRows(o)).toEqual([
      [33, 4, 31, '0.114286', '0.540852', '0.404881', '0.353340'],
      [36, 10, 31, '0.243902', '0.540852', '0.404881', '0.396545'],
      [39, 16, 31, '0.340426', '0.540852', '0.404881', '0.428720'],
      [54, 22, 43, '0.338462', '0.769708', '0.404881', '0.504350'],
      [63, 28, 49, '0.363636', '0.749772', '0.404881', '0.506096'],
      [87, 34, 70, '0.326923', '0.733061', '0.404881', '0.488288'],
    ]);
    expect(summary(o)).toEqual(['0.001728', '0.003875', '0.002429', '0.002677', '0.008532', '0.733061', '0.404881', '0.382158']);
  });

  it('ORG in conversation form (Fig. 3 text): Table 2 rows, Table 3 and Table 5', async () => {
    const { code, stdout } = await cli(['--input', ORG]);
    expect(code).toBe(0);
    const o = JSON.parse(stdout) as Output;
    expect(clusterRows(o)).toEqual([
      [39, 6, 36, '0.142857', '0.540852', '0.404881', '0.362863'],
      [42, 12, 36, '0.250000', '0.540852', '0.404881', '0.398578'],
      [45, 18, 36, '0.333333', '0.540852', '0.404881', '0.426355'],
      [105, 24, 93, '0.205128', '0.540852', '0.404881', '0.383620'],
      [108, 30, 93, '0.243902', '0.749772', '0.404881', '0.466185'],
    ]);
    expect(summary(o)).toEqual(['0.001175', '0.002913', '0.002024', '0.002038', '0.006992', '0.674989', '0.404881', '0.362287']);
  });

  it('--r-variant eq7 / eq9 change only GFRC\'s R (0.008523 / 0.008541 for COPWA)', async () => {
    const eq6 = JSON.parse((await cli(['--input', COPWA])).stdout) as Output;
    const eq7 = JSON.parse((await cli(['--input', COPWA, '--r-variant', 'eq7'])).stdout) as Output;
    const eq9 = JSON.parse((await cli(['--input', COPWA, '--r-variant', 'eq9'])).stdout) as Output;
    expect([p6(eq7.GFRC.R), p6(eq9.GFRC.R)]).toEqual(['0.008523', '0.008541']);
    expect(eq7.GFRC2).toBe(eq6.GFRC2);
    expect(eq7.GFRC.GF).toEqual(eq6.GFRC.GF);
  });

  it('--glued-first-word include counts the word fused with "S:" into a nugget that starts a turn', async () => {
    const input = file({
      L: 1000,
      l_max: 2,
      attribute_sets: [],
      conversation: [
        { role: 'user', text: 'Who?' },
        { role: 'system', text: 'Yoshua Bengio URL', nuggets: [{ text: 'Yoshua Bengio URL', level: 2 }] },
      ],
    });
    const excluded = JSON.parse((await cli(['--input', input])).stdout) as Output;
    const included = JSON.parse((await cli(['--input', input, '--glued-first-word', 'include'])).stdout) as Output;
    // U:Who?(1) S:Yoshua(2) Bengio(3) URL(4): GNP = 2·2/(2 + 4) vs 2·3/(1 + 6)
    expect(excluded.clusters.map((c) => [c.wc, c.GWCrel, c.WCnonrel])).toEqual([[4, 4, 2]]);
    expect(included.clusters.map((c) => [c.wc, c.GWCrel, c.WCnonrel])).toEqual([[4, 6, 1]]);
    expect(excluded.GFRC2).toBeCloseTo(4 / 6 / 1000, 15);
  });

  it('an empty conversation scores 0 everywhere', async () => {
    const input = file({ L: 1000, l_max: 2, attribute_sets: [{ name: 'P', kind: 'nominal', target: [0.5, 0.5] }], conversation: [] });
    const { code, stdout } = await cli(['--input', input]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ clusters: [], EGNP: 0, EGF: { P: 0 }, GFRC2: 0, GFRC: { R: 0, GF: { P: 0 }, GFRC: 0 } });
  });

  it('names the file and the field path of a validation error', async () => {
    const bad = file({ L: 1000, l_max: 2, attribute_sets: [], nuggets: [{ turn: 1, end: 3, length: 1, level: 1 }, { turn: 1, end: 9, length: 2, level: 5 }] });
    const { code, stdout, stderr } = await cli(['--input', bad]);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toBe(`fairground eval gfrc2: ${bad}: nuggets[1].level: must be an integer from 0 to l_max = 2, got 5\n`);
  });

  it('names conversation[i].nuggets[j].text for a nugget missing from its turn', async () => {
    const bad = file({ L: 1000, l_max: 2, attribute_sets: [], conversation: [{ role: 'system', text: 'a b', nuggets: [{ text: 'c', level: 1 }] }] });
    const { code, stderr } = await cli(['--input', bad]);
    expect(code).toBe(2);
    expect(stderr).toBe(`fairground eval gfrc2: ${bad}: conversation[0].nuggets[0].text: nugget text not found in the turn: 'c'\n`);
  });

  it('names the file, line and column of invalid JSON', async () => {
    const bad = file('{\n  "L": 1000,\n  "l_max" 2\n}');
    const { code, stderr } = await cli(['--input', bad]);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^fairground eval gfrc2: ${bad}:3: invalid JSON: .*\\(column 11\\)\\n$`));
  });

  it('rejects a missing --input, an unreadable file and an unknown --r-variant', async () => {
    expect(await cli([])).toMatchObject({ code: 2, stderr: 'fairground eval gfrc2: missing required option --input\n' });
    expect(await cli(['--input', 'nope.json'])).toMatchObject({ code: 2, stderr: 'fairground eval gfrc2: nope.json: cannot read file (ENOENT)\n' });
    expect(await cli(['--input', COPWA, '--r-variant', 'eq8'])).toMatchObject({ code: 2, stderr: "fairground eval gfrc2: --r-variant: expected one of eq6, eq7, eq9, got 'eq8'\n" });
  });

  it('prints help', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: fairground eval gfrc2 --input CONV\.json/);
  });
});
