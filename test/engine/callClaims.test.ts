/**
 * Issue 35 item 4 in one process, on a real workspace file: the call claims (call_claims,
 * CallCacheRepo.acquire) and CachedEngine's wait for a call another process computes. "Another
 * process" is a claim row holding the pid of a live child process (`node -e` waiting on stdin); its
 * answer is written through a second connection, as that process would. The engine is a toy that
 * counts the calls reaching it (what is under test is the cache and the claims, not a model).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedEngine, callCacheKey } from '../../src-main/engine/callCache';
import type { Engine, EngineIdentity, GenerateRequest, GenerateResult } from '../../src-main/engine/types';
import { CallCacheRepo, CLAIM_STALE_MS, machineBoot } from '../../src-main/store/callCacheRepo';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

const IDENTITY: EngineIdentity = { kind: 'remote', modelKey: 'remote:toy', modelName: 'toy', outputAffectingSettings: {}, versions: {} };

class ToyEngine implements Engine {
  generated = 0;
  identity() {
    return Promise.resolve(IDENTITY);
  }
  generate(r: GenerateRequest): Promise<GenerateResult> {
    this.generated++;
    return Promise.resolve({ text: `computed here: ${r.prompt}`, promptTokens: 1, completionTokens: 1, finishReason: 'stop' });
  }
  score(): never {
    throw new Error('not used');
  }
  embed(): never {
    throw new Error('not used');
  }
  tokenize(): never {
    throw new Error('not used');
  }
  close() {
    return Promise.resolve();
  }
}

let dir: string;
let live: ChildProcess;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-claims-unit-'));
  live = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] });
});
afterAll(() => {
  live?.kill();
  rmSync(dir, { recursive: true, force: true });
});

function twoConnections(): { mine: Workspace; other: Workspace } {
  const file = join(dir, `w${++n}.fairground`);
  const mine = openWorkspace(file);
  return { mine, other: openWorkspace(file) };
}

const request = (prompt: string): GenerateRequest => ({ prompt, maxTokens: 4, sampling: { temperature: 0 } });
const keyOf = (r: GenerateRequest) => callCacheKey(IDENTITY, 'generate', r);
const claimBy = (ws: Workspace, key: string, pid: number, heartbeat = Date.now(), boot = machineBoot()) =>
  ws.db.prepare(`INSERT INTO call_claims(key, pid, boot, started_at, heartbeat) VALUES (?, ?, ?, ?, ?)`).run(key, pid, boot, new Date(heartbeat).toISOString(), heartbeat);
const claims = (ws: Workspace) => ws.db.prepare(`SELECT key, pid FROM call_claims ORDER BY key`).all() as { key: string; pid: number }[];

describe('call claims across processes', () => {
  it('acquire: stored answer, a live claim elsewhere, a dead or silent claim taken over, its own claim ended by put or release', () => {
    const { mine, other } = twoConnections();
    try {
      const repo = new CallCacheRepo(mine.db);
      claimBy(other, 'a', live.pid!);
      expect(repo.acquire('a')).toBe('elsewhere');
      // The same pid on another host or boot: only the heartbeat speaks for it.
      claimBy(other, 'b', live.pid!, Date.now(), 'elsewhere/boot');
      expect(repo.acquire('b')).toBe('elsewhere');
      expect(repo.acquire('b', Date.now() + CLAIM_STALE_MS + 1)).toBe('mine');
      // A live pid whose heartbeat stopped (a reused pid) is taken over too.
      claimBy(other, 'c', live.pid!, Date.now() - CLAIM_STALE_MS - 1);
      expect(repo.acquire('c')).toBe('mine');
      expect(repo.takenOver).toBe(2);
      expect(claims(other)).toEqual([
        { key: 'a', pid: live.pid },
        { key: 'b', pid: process.pid },
        { key: 'c', pid: process.pid },
      ]);
      // The answer and the end of the claim in one commit; a failed computation just ends the claim.
      repo.put({ key: 'b', modelKey: 'm', op: 'generate', request: {}, response: { text: 'B' }, durationMs: 1 });
      repo.release('c');
      expect(claims(other)).toEqual([{ key: 'a', pid: live.pid }]);
      expect(repo.acquire('b')).toEqual({ response: { text: 'B' } });
      expect(repo.acquire('c')).toBe('mine');
    } finally {
      other.close();
      mine.close();
    }
  });

  it("CachedEngine waits for a live process's answer instead of computing it, and computes it once that claim is gone unanswered", async () => {
    const { mine, other } = twoConnections();
    try {
      const repo = new CallCacheRepo(mine.db);
      let elsewhere = 0;
      const acquire = repo.acquire.bind(repo);
      repo.acquire = (key: string, now?: number) => {
        const c = acquire(key, now);
        if (c === 'elsewhere') elsewhere++;
        return c;
      };
      const toy = new ToyEngine();
      const engine = new CachedEngine(toy, repo, { capacity: () => 2 });
      const until = async (cond: () => boolean) => {
        while (!cond()) await new Promise((r) => setTimeout(r, 5));
      };

      // Answered by the other process: used, never computed here.
      const r1 = request('one');
      claimBy(other, keyOf(r1), live.pid!);
      const first = engine.generateTracked(r1);
      // Meanwhile this engine's slots go on computing other calls.
      expect((await engine.generate(request('free'))).text).toBe('computed here: free');
      await until(() => elsewhere >= 2);
      new CallCacheRepo(other.db).put({ key: keyOf(r1), modelKey: IDENTITY.modelKey, op: 'generate', request: r1, response: { text: 'from the other process', promptTokens: 1, completionTokens: 1, finishReason: 'stop' }, durationMs: 1 });
      other.db.prepare(`DELETE FROM call_claims WHERE key = ?`).run(keyOf(r1));
      expect(await first).toEqual({ result: { text: 'from the other process', promptTokens: 1, completionTokens: 1, finishReason: 'stop' }, fromCache: true });
      expect(toy.generated).toBe(1);

      // The other process gave up (its claim released, no answer): computed here, once.
      const r2 = request('two');
      claimBy(other, keyOf(r2), live.pid!);
      const second = engine.generateTracked(r2);
      await until(() => elsewhere >= 3);
      other.db.prepare(`DELETE FROM call_claims WHERE key = ?`).run(keyOf(r2));
      expect(await second).toEqual({ result: { text: 'computed here: two', promptTokens: 1, completionTokens: 1, finishReason: 'stop' }, fromCache: false });
      expect(toy.generated).toBe(2);

      // A run cancelled while it waits stops waiting at once.
      const r3 = request('three');
      claimBy(other, keyOf(r3), live.pid!);
      const controller = new AbortController();
      const third = engine.generate(r3, controller.signal);
      await until(() => elsewhere >= 5);
      controller.abort(new Error('cancelled by the test'));
      await expect(third).rejects.toThrow('cancelled by the test');
      expect(toy.generated).toBe(2);
      expect(claims(other)).toEqual([{ key: keyOf(r3), pid: live.pid }]);
    } finally {
      other.close();
      mine.close();
    }
  });
});
