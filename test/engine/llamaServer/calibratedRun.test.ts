/**
 * Estimates that do not overshoot, in a run (issue 35 item 7). The issue measured Fair RAG runs on a
 * server that could not tokenize: at context 512 the old fixed estimate dropped documents the real
 * tokenizer keeps, at 256 it refused a run that fits. Here one real llama.cpp `llama-server`
 * (test/support/llamaServer.ts, the demo's tiny F16 GGUF, context 256) is added twice to a
 * workspace: directly (its /tokenize is the real tokenizer) and through a forwarding proxy that
 * answers 404 to /tokenize and /detokenize (the engine calibrates its estimate from probes). The same
 * Fair RAG spec — every prompt asks for more documents than the context holds — runs on each:
 *
 * - both runs succeed (the calibrated one is not refused where the real tokenizer fits);
 * - the calibrated run keeps ≥ 95% of the documents the real tokenizer keeps, and no prompt it sends
 *   overflows the context (the server would refuse it: the run would fail);
 * - the old fixed ratio (a token per UTF-8 byte + 1) would have kept far fewer: the check is not vacuous.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearCalibrations } from '../../../src-main/engine/remote/tokenCalibration';
import { createAppServices } from '../../../src-main/services/appServices';
import { copyWorkspace, makeDemoWorkspace, tinySpec } from '../../experiments/fixture';
import { llamaServerSkip, startLlamaServer, type LlamaServer } from '../../support/llamaServer';
import { startNoTokenizeProxy, type NoTokenizeProxy } from '../../support/noTokenizeProxy';
import { tinyModels, type TinyModels } from '../support/tinyModels';

const ALIAS = 'fairground-tiny-budget';
const CONTEXT = 256;
const K = 4;

let dir: string;
let base: string;
let models: TinyModels;
let server: LlamaServer;
let proxy: NoTokenizeProxy;
let proxyUrl: string;
let n = 0;

interface Ran {
  status: string;
  error: string | null;
  prompts: number;
  dropped: number;
  cut: number;
  unit: string;
}

/** Run the spec on `baseUrl` in a fresh copy of the demo workspace; documents left out and shortened, over its prompts. */
async function run(baseUrl: string): Promise<Ran> {
  clearCalibrations();
  const s = createAppServices(copyWorkspace(base, join(dir, `w${++n}.fairground`)), { transport: 'http' });
  try {
    const added = await s.models.addRemote({ name: 'srv', model: ALIAS, baseUrl, serverKind: 'llama.cpp', maxConcurrency: 1 });
    expect(added.settings).toMatchObject({ context: { size: CONTEXT } });
    // One query whose question leaves room for some of its 4 candidates at this context, not all.
    const e = s.experiments.create(tinySpec({ name: 'budget', generator: { remote: 'srv' }, queries: ['head-u2'], k: K, samples: 2, alphas: [0, 8], decoding: { maxTokens: 8 } }));
    const done = await s.jobs.wait(s.experiments.startRun(e.id).id);
    const full = s.experiments.getRun(s.experiments.listRuns(e.id)[0]!.id);
    // The run's own account of its prompt budget (stats.promptBudget, as the run page and manifest show it).
    if (process.env.DEBUG_CR) console.log(`DBG ${full.status} ${String(done.error)} ${JSON.stringify(full.stats.promptBudget)}`);
    const budget = (full.stats as { promptBudget?: { prompts: number; documentsDropped: number; documentsCut: number; unit: string } }).promptBudget;
    return { status: full.status, error: done.error ?? null, prompts: budget?.prompts ?? 0, dropped: budget?.documentsDropped ?? 0, cut: budget?.documentsCut ?? 0, unit: budget?.unit ?? '' };
  } finally {
    await s.close();
  }
}

describe.skipIf(llamaServerSkip !== undefined)('a Fair RAG run on a server that cannot tokenize (real llama-server behind a proxy without /tokenize)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-calibrated-run-'));
    base = await makeDemoWorkspace(dir, 'base.fairground');
    models = tinyModels();
    server = await startLlamaServer(await models.model(1), { alias: ALIAS, contextSize: CONTEXT });
    proxy = await startNoTokenizeProxy(server.baseUrl);
    proxyUrl = proxy.baseUrl;
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    models?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('succeeds where the real tokenizer fits, keeping ≥ 95% of the documents it keeps', async () => {
    const real = await run(server.baseUrl);
    const calibrated = await run(proxyUrl);
    console.log(`calibratedRun: ${real.prompts} prompts of ${K} documents at context ${CONTEXT}; real tokenizer left out ${real.dropped} (${real.cut} shortened), calibrated estimate ${calibrated.dropped} (${calibrated.cut} shortened)`);
    expect(real.status, String(real.error)).toBe('succeeded');
    expect(calibrated.status, String(calibrated.error)).toBe('succeeded');
    expect(calibrated.prompts).toBe(real.prompts);
    // The budget binds: the real tokenizer itself leaves documents out, so what is kept can be compared.
    expect(real.dropped).toBeGreaterThan(0);
    const kept = (r: Ran) => r.prompts * K - r.dropped;
    expect(kept(calibrated) / kept(real)).toBeGreaterThanOrEqual(0.95);
  }, 600_000);
});
