/**
 * Issue 35 item 6: one spec, one experiment on every engine — or the difference named. RichRAG's
 * `constraint: auto` is a GBNF grammar on the local engine and a JSON schema on a server, two
 * different experiments (other outputs, other token budgets). Each run names the transport each
 * constrained step used, in its stats (shown on the run page) and in its manifest; a spec that sets
 * `json-schema` runs the same transport on both engines.
 *
 * Parity runs: the RichRAG demo spec on the simulated reader (a local model) and on a loopback
 * OpenAI-compatible stand-in (test/support/fakeOpenAiServer.ts), through `fairground run`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constraintTransports } from '../../../src-main/experiments/richrag/constraints';
import { openWorkspace } from '../../../src-main/store/workspace';
import { runCliCaptured } from '../../support/cli';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { startLab, stopLab } from '../../support/labServer';
import { copyWorkspace } from '../fixture';

const LOCAL = { kind: 'local', modelId: 1 } as const;
const REMOTE = { kind: 'remote', endpointId: 1 } as const;

describe('constraintTransports (pure)', () => {
  it("'auto' is a grammar locally and a JSON schema on a server, named; an explicit setting is the same on both", () => {
    expect(constraintTransports({ ranker: { setting: 'auto', ref: LOCAL }, judge: { setting: 'auto', ref: REMOTE } })).toEqual({
      ranker: { setting: 'auto', mode: 'grammar', engine: 'local', means: 'GBNF grammar (the output is an option)' },
      judge: { setting: 'auto', mode: 'json-schema', engine: 'remote', means: 'JSON schema ({"choice": option})' },
    });
    const local = constraintTransports({ explorer: { setting: 'json-schema', ref: LOCAL }, ranker: { setting: 'json-schema', ref: LOCAL } });
    const remote = constraintTransports({ explorer: { setting: 'json-schema', ref: REMOTE }, ranker: { setting: 'json-schema', ref: REMOTE } });
    expect(Object.values(local).map((c) => c.mode)).toEqual(['json-schema', 'json-schema']);
    expect(Object.values(remote).map((c) => c.means)).toEqual(Object.values(local).map((c) => c.means));
  });
});

let dir: string;
let base: string;
let server: FakeOpenAiServer;
let n = 0;

beforeAll(async () => {
  ({ dir, base, server } = await startLab('fg-richrag-transport-'));
}, 240_000);

afterAll(() => stopLab(dir, server));

type Named = Record<string, { setting: string; mode: string; engine: string; means: string }>;

/** Run the RichRAG demo (two queries) with `over`; the run's stats.constraints and manifest parameters.constraints. */
async function run(over: Record<string, unknown>): Promise<{ stats: Named; manifest: Named }> {
  const spec = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'richrag.json'), 'utf8')) as Record<string, unknown>;
  const file = join(dir, `spec${++n}.json`);
  writeFileSync(file, JSON.stringify({ ...spec, name: `transport ${n}`, queries: (spec.queries as string[] | undefined)?.slice(0, 2), judge: { ...(spec.judge as object), enabled: true }, ...over }));
  const ws = copyWorkspace(base, join(dir, `w${n}.fairground`));
  const r = await runCliCaptured(['run', file, '--workspace', ws], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  const w = openWorkspace(ws);
  try {
    const row = w.db.prepare(`SELECT stats, manifest FROM runs ORDER BY id DESC LIMIT 1`).get() as { stats: string; manifest: string };
    return { stats: (JSON.parse(row.stats) as { constraints: Named }).constraints, manifest: (JSON.parse(row.manifest) as { parameters: { constraints: Named } }).parameters.constraints };
  } finally {
    w.close();
  }
}

describe('RichRAG runs name the constraint transport of each step (simulated reader vs a server)', () => {
  it("with 'auto' the two engines differ, and each run says which it used; with 'json-schema' they are the same", async () => {
    const local = await run({});
    const remote = await run({ generator: { remote: 'lab' } });
    expect(local.stats).toEqual(local.manifest);
    expect(remote.stats).toEqual(remote.manifest);
    expect(Object.keys(local.stats).sort()).toEqual(['explorer', 'judge', 'ranker']);
    for (const step of ['explorer', 'judge', 'ranker']) {
      expect(local.stats[step]).toEqual({ setting: 'auto', mode: 'grammar', engine: 'local', means: 'GBNF grammar (the output is an option)' });
      expect(remote.stats[step]).toEqual({ setting: 'auto', mode: 'json-schema', engine: 'remote', means: 'JSON schema ({"choice": option})' });
    }

    const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'richrag.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    const schema = { constraint: 'json-schema' };
    const same = { explorer: { ...demo.explorer, ...schema }, ranker: { ...demo.ranker, ...schema }, judge: { ...demo.judge, enabled: true, ...schema } };
    const localSchema = await run(same);
    const remoteSchema = await run({ ...same, generator: { remote: 'lab' } });
    for (const step of ['explorer', 'judge', 'ranker']) {
      expect(localSchema.stats[step]!.mode).toBe('json-schema');
      expect({ ...localSchema.stats[step], engine: 'any' }).toEqual({ ...remoteSchema.stats[step], engine: 'any' });
    }
  }, 600_000);
});
