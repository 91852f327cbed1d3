/**
 * Issue 36 item 6: a YAML spec of nested aliases (a "billion laughs": 10 aliases per level, 9 levels, 10^9 nodes
 * once expanded) made the yaml package throw "Excessive alias count…" past its maxAliasCount, and the CLI printed
 * it without the file and exited 1. Now it is bad input like any other: the file named, exit 2, one stderr line.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { parseSpecText } from '../../src-main/experiments/specFile';
import { cli } from './cliHarness';

const dir = mkdtempSync(join(tmpdir(), 'fg-yaml-bomb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bomb(levels: number): string {
  const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i <= levels; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

describe('a YAML alias bomb is bad input', () => {
  it('parseSpecText refuses it with a DataError naming the file; a few aliases still expand', () => {
    let err: unknown;
    try {
      parseSpecText(bomb(9), 'bomb.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataError);
    expect((err as Error).message).toBe('bomb.yaml: invalid YAML: Excessive alias count indicates a resource exhaustion attack');
    expect(parseSpecText('a: &a [1, 2]\nb: [*a, *a]\n', 'small.yaml')).toEqual({ a: [1, 2], b: [[1, 2], [1, 2]] });
  });

  it('`run` and `plan export` exit 2 with the file named, touching no workspace', async () => {
    const spec = join(dir, 'bomb.yaml');
    writeFileSync(spec, bomb(9));
    for (const argv of [
      ['run', spec, '-w', join(dir, 'w.fairground')],
      ['plan', 'export', spec, '--format', 'openai-batch', '-o', join(dir, 'out.jsonl'), '-w', join(dir, 'w.fairground')],
    ]) {
      const r = await cli(argv, dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`fairground ${argv[0]}${argv[0] === 'plan' ? ' export' : ''}: ${spec}: invalid YAML: Excessive alias count indicates a resource exhaustion attack\n`);
    }
    expect(readdirSync(dir)).toEqual(['bomb.yaml']);
  });
});
