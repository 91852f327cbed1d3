/**
 * Cases the API probes found (apiPaths.test.ts), kept as plain tests that fail without their fix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import type { Router } from '../../src-main/api/router';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';

let dir: string;
let services: AppServices;
let router: Router;
const internal: unknown[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-sec-regress-'));
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  router = createApiRouter(services, (err) => internal.push(err));
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * evaluation.export takes the evaluation back from the UI; an input hash that is not a SHA-256
 * passed the contract and made the manifest builder throw a RangeError: an 'internal' error (500)
 * instead of a validation error naming the field.
 */
describe('evaluation.export with a malformed input hash', () => {
  it('is a validation error naming the field', async () => {
    const ev = await router.call('evaluation.ir', {
      runs: [{ name: 'a.trec', text: 'q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\n' }],
      qrels: { name: 'qrels.txt', text: 'q1 0 d1 1\n' },
      measures: ['P@1'],
    });
    expect(ev.ok).toBe(true);
    const evaluation = (ev as { data: { inputs: { sha256: string }[] } }).data;
    evaluation.inputs[0]!.sha256 = 'not-a-hash';
    const r = await router.call('evaluation.export', { evaluation, format: 'csv-summary' });
    expect(r).toMatchObject({ ok: false, error: { code: 'validation', field: 'evaluation.inputs[0].sha256' } });
    expect(internal).toEqual([]);
  });
});
