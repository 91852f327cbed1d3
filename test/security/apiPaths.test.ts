/**
 * File paths in API requests (issue 10). Policy found in the code (services/*):
 *
 * - READ (issue 15: path grants): methods that take a path read only regular files under the
 *   folders the user allowed (browser mode: the workspace's folder, plus Settings → Allowed
 *   folders; Electron: also files picked in a native dialog or dropped) — services/paths.ts:
 *     collections.import files[]        the content is imported
 *     collections.previewFile path      returns the first lines (raw text)
 *     models.add path                   the GGUF header is read
 *     retrieval.dense.build model,
 *     retrieval.runs.create model       a library name or a GGUF path, loaded by llama.cpp
 *   test/security/pathGrants.test.ts probes that policy over HTTP; here every method is probed
 *   with a file outside the workspace folder, and none may read it.
 * - WRITE: no method writes a file: exports (TREC runs, CSV/LaTeX, manifests) come back as text
 *   in the response; everything else goes into the workspace database. This test holds the API
 *   to that: every method of the contract — including ones added after this test — is called
 *   with every path-like field pointing outside the workspace folder, first at paths that do not
 *   exist, then at an existing file; nothing outside the workspace folder may appear or change.
 *   The methods whose responses carried the existing file's content are listed (the read policy
 *   above, checked against the code's behaviour).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, type Envelope } from '../../src-main/api/contract/index';
import { createApiRouter } from '../../src-main/handlers/index';
import type { Router } from '../../src-main/api/router';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { pathFields, PATH_KEY, repaired } from './contractInputs';

const SENTINEL = 'SENTINEL-c0ffee-5e1f';

let root: string;
let wsDir: string;
let outside: string;
let services: AppServices;
let router: Router;
let fake: FakeOpenAiServer;
/** Internal errors (500s) by method: a request the contract accepts must not crash a handler. */
const internalErrors: string[] = [];
let current = '';
/**
 * Reported to its owners, not fixed here (in-progress code of another engineer):
 * conversations.exportEvaluation passes a non-hex `dataSha256` to the manifest builder, which
 * throws a RangeError (an internal error instead of a validation error).
 */
const REPORTED_INTERNAL = new Set(['conversations.exportEvaluation']);

/** Every file under `dir` (not following links) with size and content hash; `skip` is left out. */
function tree(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (p === skip) continue;
      const st = statSync(p);
      if (st.isDirectory()) {
        out.set(`${p}/`, 'dir');
        walk(p);
      } else out.set(p, `${st.size}:${createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16)}`);
    }
  };
  walk(dir);
  return out;
}

async function call(method: string, input: unknown): Promise<Envelope<unknown>> {
  current = method;
  const timeout = new Promise<Envelope<unknown>>((resolve) => setTimeout(() => resolve({ ok: false, error: { code: 'internal', message: `timeout: ${method}` } }), 20_000));
  return Promise.race([router.call(method, input), timeout]);
}

async function ok<T>(method: string, input: unknown): Promise<T> {
  const r = await call(method, input);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.data as T;
}

async function settleJobs(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const jobs = await ok<{ id: string; status: string }[]>('jobs.list', {});
    const running = jobs.filter((j) => j.status === 'running' || j.status === 'queued');
    if (running.length === 0) return;
    if (i === 150) for (const j of running) await call('jobs.cancel', { id: j.id });
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fg-sec-paths-'));
  wsDir = join(root, 'ws');
  outside = join(root, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'existing.jsonl'), `{"id": "s1", "text": "${SENTINEL}"}\n`);
  mkdirSync(wsDir, { recursive: true });
  await writeTinyGguf(join(wsDir, 'tiny.gguf'), { preset: 'tiny', seed: 3 });
  fake = await FakeOpenAiServer.start({ apiKey: 'k' });
  services = createAppServices(join(wsDir, 'w.fairground'), { transport: 'http' });
  router = createApiRouter(services, (err) => {
    if (!REPORTED_INTERNAL.has(current)) internalErrors.push(`${current}: ${String(err).slice(0, 200)}`);
  });
  await ok('settings.update', { threads: 1 });
  await services.collections.importContents({ collectionName: 'c' }, 'corpus', [{ name: 'corpus.jsonl', content: '{"id": "d1", "text": "tidal power turbines"}\n{"id": "d2", "text": "wind farms"}\n' }]);
  await services.collections.importContents({ collectionName: 'c' }, 'queries', [{ name: 'q.jsonl', content: '{"id": "q1", "text": "tidal power"}\n' }]);
  await services.collections.importContents({ collectionName: 'c' }, 'qrels', [{ name: 'qrels.txt', content: 'q1 0 d1 1\n' }]);
  await ok('models.add', { path: join(wsDir, 'tiny.gguf'), name: 'tiny' });
  await ok('remotes.add', { name: 'fake', baseUrl: fake.baseUrl, model: 'fake-model', apiKey: 'k' });
  await ok('retrieval.runs.create', { collectionId: 1, method: 'bm25', name: 'bm25' });
  await settleJobs();
}, 120_000);

afterAll(async () => {
  await services?.close();
  await fake?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Destructive methods last, so the others find the setup's collection, model and run. */
const methods = Object.keys(contract).sort((a, b) => Number(/delete|remove|clear/i.test(a)) - Number(/delete|remove|clear/i.test(b)) || a.localeCompare(b));

describe('file paths in API requests', () => {
  it('the contract has the path-taking fields whose policy is documented above', () => {
    const fields = Object.entries(contract).flatMap(([m, def]) => pathFields(def.input).map((f) => `${m} ${f}`));
    for (const known of ['collections.import files[]', 'collections.previewFile path', 'models.add path', 'retrieval.dense.build model', 'retrieval.runs.create model']) {
      expect(fields).toContain(known);
    }
  });

  it('no method writes outside the workspace folder, and none reads a file outside it', async () => {
    const before = tree(root, wsDir);
    const cwdBefore = new Set(readdirSync(process.cwd()));
    const probes: string[] = [];
    const readers = new Set<string>();
    const validMethods = new Set<string>();
    for (const pass of ['missing', 'existing'] as const) {
      for (const method of methods) {
        const schema = contract[method as keyof typeof contract].input;
        const seen = new Set<string>();
        for (let variant = 0; variant < 6; variant++) {
          const { input, valid } = repaired(schema, {
            variant,
            id: 1,
            pathValue: (key) => {
              if (!PATH_KEY.test(key)) return undefined;
              if (pass === 'existing') return join(outside, 'existing.jsonl');
              const p = join(outside, 'new', `${method}-${key}-${variant}`);
              probes.push(p);
              return p;
            },
          });
          const text = JSON.stringify(input);
          if (seen.has(text)) continue;
          seen.add(text);
          if (valid) validMethods.add(method);
          const r = await call(method, input);
          if (JSON.stringify(r).includes(SENTINEL)) readers.add(method);
        }
      }
      await settleJobs();
    }
    // Imported content shows up in the collections afterwards.
    for (const c of await ok<{ id: number; name: string }[]>('collections.list', {})) {
      const docs = await call('documents.list', { collectionId: c.id });
      if (JSON.stringify(docs).includes(SENTINEL)) readers.add(`collections.import (into '${c.name}')`);
    }

    // The probe means something only if most methods got past validation.
    const invalid = methods.filter((m) => !validMethods.has(m));
    expect(invalid.length, `no valid input synthesized for: ${invalid.join(', ')}`).toBeLessThanOrEqual(methods.length / 5);

    const after = tree(root, wsDir);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
    expect(changed).toEqual([]);
    expect(probes.filter((p) => existsSync(p))).toEqual([]);
    expect([...readdirSync(process.cwd())].filter((n) => !cwdBefore.has(n))).toEqual([]);
    // The read policy: no method reads a file outside the allowed folders (issue 15).
    expect([...readers].sort()).toEqual([]);
    expect(internalErrors).toEqual([]);
  }, 300_000);
});
