/**
 * The weights check of one endpoint (weightsCheck.ts) against loopback fake servers: the identity
 * check of vLLM models is the reported `root`, so an endpoint that lists the model but reports no
 * revision must not pass when the model has a recorded revision (issue 37 item 4).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { verifyEndpointWeights, type ExpectedWeights } from '../../../src-main/engine/remote/weightsCheck';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

const servers: FakeOpenAiServer[] = [];
const engines: RemoteEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(root: string | null): Promise<FakeOpenAiServer> {
  const server = await FakeOpenAiServer.start({ models: ['m'], root });
  servers.push(server);
  return server;
}

const expected = (reported: string | undefined): ExpectedWeights => ({ model: 'm', serverKind: 'vllm', reported, fingerprint: undefined });

describe('verifyEndpointWeights', () => {
  it('passes an endpoint reporting the recorded root, and refuses one listing the model with no revision', async () => {
    const same = await serve('/models/llama-8b');
    const silent = await serve(null);
    const target = (s: FakeOpenAiServer) => ({ baseUrl: s.baseUrl, apiKey: undefined, timeoutMs: 2000 });
    expect(await verifyEndpointWeights(target(same), expected('root=/models/llama-8b'))).toEqual({ kind: 'same' });
    expect(await verifyEndpointWeights(target(silent), expected('root=/models/llama-8b'))).toEqual({
      kind: 'different',
      reason: 'serves no reported revision, not the recorded root=/models/llama-8b',
    });
    // With nothing recorded there is nothing to compare: the silent endpoint passes.
    expect(await verifyEndpointWeights(target(silent), expected(undefined))).toEqual({ kind: 'same' });
  });

  it('a pool leaves out the replica that reports no revision and serves every call from the other', async () => {
    const a = await serve('/models/llama-8b');
    const b = await serve(null);
    const engine = new RemoteEngine({
      model: 'm',
      endpoints: [
        { baseUrl: a.baseUrl, maxConcurrency: 1 },
        { baseUrl: b.baseUrl, maxConcurrency: 1 },
      ],
      revision: 'root=/models/llama-8b',
      checkRevision: true,
      ...fastRetries,
    });
    engines.push(engine);
    for (let i = 0; i < 3; i++) await engine.generate({ prompt: `q ${i}`, maxTokens: 4, sampling: { temperature: 0 } });
    expect(a.requestsTo('/v1/completions')).toHaveLength(3);
    expect(b.requestsTo('/v1/completions')).toHaveLength(0);
    const stats = engine.endpointStats()[1]!;
    expect(stats.state).toBe('excluded');
    expect(stats.lastError).toContain('serves no reported revision, not the recorded root=/models/llama-8b');
  });
});
