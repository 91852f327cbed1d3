/**
 * openingHost (issue 25 item 2): what `fairground serve` answers while the workspace opens behind
 * the page. The host it wraps here is a stand-in recording what reaches it (the real host thread
 * is driven by openingBrowser.e2e.test.ts); the clock is explicit.
 */
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-main/api/contract/index';
import { openingHost } from '../../src-main/host/openingHost';
import type { ServiceHost } from '../../src-main/host/serviceHost';
import { EventBus } from '../../src-main/services/eventBus';

function standIn(log: string[]): ServiceHost {
  return {
    router: { call: async (method) => (log.push(`call ${method}`), { ok: true, data: method } as Envelope<unknown>) },
    events: new EventBus(),
    workspacePath: '/real/path.fairground',
    grant: async (path) => (log.push(`grant ${path}`), path),
    ensureDemo: async () => void log.push('demo'),
    close: async () => void log.push('close'),
  };
}

describe('openingHost', () => {
  it('answers app.startup at once with the step and the elapsed time; other calls wait, then reach the host', async () => {
    let t = 1000;
    const log: string[] = [];
    let release: () => void = () => {};
    const inner = standIn(log);
    const host = openingHost(
      '/given.fairground',
      async (ctx) => {
        ctx.started(inner);
        ctx.step('setting up the demo');
        await new Promise<void>((r) => (release = r));
      },
      () => t,
    );
    await Promise.resolve();
    t = 1250;
    expect((await host.router.call('app.startup', {})) as unknown).toEqual({ ok: true, data: { state: 'opening', step: 'setting up the demo', elapsedMs: 250 } });
    expect(host.workspacePath).toBe('/real/path.fairground');
    let answered = false;
    const waiting = host.router.call('collections.list', {}).then((e) => ((answered = true), e));
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    expect(log).toEqual([]);
    t = 1400;
    release();
    expect(await waiting).toEqual({ ok: true, data: 'collections.list' });
    t = 9000; // the duration stays that of the opening
    expect(host.startup).toEqual({ state: 'ready', step: 'ready', elapsedMs: 400 });
    expect(await host.grant('/a/file')).toBe('/a/file');
    expect(log).toEqual(['call collections.list', 'grant /a/file']);
  });

  it('forwards the host’s events from its start', async () => {
    const inner = standIn([]);
    const host = openingHost('/w.fairground', async (ctx) => ctx.started(inner));
    await host.opened;
    const seen: string[] = [];
    host.events.subscribe((e) => seen.push(e.event));
    inner.events.emit('job.updated', {} as never);
    expect(seen).toEqual(['job.updated']);
  });

  it('a failed opening: app.startup says why, calls answer a workspace error, grants reject, close() resolves', async () => {
    const host = openingHost('/bad.fairground', async () => {
      throw new Error('/bad.fairground is an empty file (0 bytes), not a Fairground workspace');
    });
    await expect(host.opened).rejects.toThrow(/empty file/);
    expect(host.startup).toMatchObject({ state: 'failed', error: '/bad.fairground is an empty file (0 bytes), not a Fairground workspace' });
    expect(await host.router.call('workspace.info', {})).toEqual({
      ok: false,
      error: { code: 'workspace', message: 'the workspace could not be opened: /bad.fairground is an empty file (0 bytes), not a Fairground workspace' },
    });
    await expect(host.grant('/x')).rejects.toThrow(/empty file/);
    await host.close();
  });

  it('close() during the opening waits for the host to start, then closes it (never left running)', async () => {
    const log: string[] = [];
    let start: () => void = () => {};
    const inner = standIn(log);
    const host = openingHost('/w.fairground', async (ctx) => {
      await new Promise<void>((r) => (start = r));
      ctx.started(inner);
      await new Promise(() => {}); // the demo set-up never ends by itself
    });
    let closed = false;
    const closing = host.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    start();
    await closing;
    expect(log).toEqual(['close']);
    expect(host.startup.state).toBe('opening');
  });
});
