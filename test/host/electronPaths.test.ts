/**
 * What the Electron shell does with the service host, without the Electron binary (it cannot run
 * here): the IPC bridge over the hosted services (a picked file is granted in the host and then
 * readable by API calls), and local models whose engine workers the client starts for the host
 * (Electron starts them as utility processes; here the same relay drives child_process forks of
 * the real llama.cpp worker, with the generated tiny model): Try it streams through the host.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_INDEX_URL } from '../../src-main/app/appProtocol';
import { CALL_CHANNEL, PICK_FILE_CHANNEL, registerIpc, type InvokeEventLike, type IpcMainLike } from '../../src-main/app/ipcBridge';
import { forkSpawner, type WorkerSpawner } from '../../src-main/engine/local/workerChild';
import { startServiceHost } from '../../src-main/host/hostClient';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-host-electron-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the IPC bridge over the hosted services', () => {
  it('a file picked in the dialog is granted in the host and becomes readable; others stay refused', async () => {
    mkdirSync(join(dir, 'ipc'));
    const picked = join(dir, 'picked.jsonl');
    const other = join(dir, 'other.jsonl');
    for (const f of [picked, other]) writeFileSync(f, '{"id": "d1", "text": "tidal power"}\n');
    const host = await startServiceHost({ workspacePath: join(dir, 'ipc', 'w.fairground'), transport: 'electron' });
    const handlers = new Map<string, (e: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain: IpcMainLike = { handle: (c, l) => void handlers.set(c, l), removeHandler: (c) => void handlers.delete(c) };
    const ourSender = { id: 1 };
    try {
      const unregister = registerIpc({
        ipcMain,
        router: host.router,
        events: host.events,
        isOurContents: (s) => s === ourSender,
        targets: () => [],
        pickFile: async () => picked,
        grant: (p) => host.grant(p),
      });
      const ours = { sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } };
      const preview = (path: string) => handlers.get(CALL_CHANNEL)!(ours, 'collections.previewFile', { path, kind: 'corpus' });
      expect(await preview(picked)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await handlers.get(PICK_FILE_CHANNEL)!(ours, {})).toEqual({ ok: true, data: realpathSync(picked) });
      expect(await preview(picked)).toMatchObject({ ok: true, data: { format: 'jsonl', rows: [{ id: 'd1', text: 'tidal power' }] } });
      expect(await preview(other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      unregister();
    } finally {
      await host.close();
    }
  }, 120_000);
});

describe('engine workers started by the client for the host', () => {
  it('Try it on the tiny model streams its text through the host; the worker was started by the client', async () => {
    mkdirSync(join(dir, 'engine'));
    const spawned: string[] = [];
    const engineSpawner: WorkerSpawner = (launch) => {
      spawned.push(launch.modulePath);
      return forkSpawner(launch);
    };
    const host = await startServiceHost({ workspacePath: join(dir, 'engine', 'w.fairground'), transport: 'http', engineSpawner });
    try {
      const logged: string[] = [];
      await host.ensureDemo((m) => logged.push(m));
      expect(logged.length).toBeGreaterThan(0);
      expect(await host.router.call('settings.update', { threads: 1 })).toMatchObject({ ok: true });
      const models = (await host.router.call('models.list', {})) as { ok: true; data: { id: number; name: string }[] };
      const tiny = models.data.find((m) => m.name === 'fairground-tiny')!;
      const texts: string[] = [];
      const off = host.events.subscribe((e) => {
        if (e.event === 'models.tryText' && e.payload.streamId === 's1') texts.push(e.payload.text);
      });
      const r = (await host.router.call('models.try', { id: tiny.id, request: { prompt: 'Fair ranking means', maxTokens: 6, streamId: 's1' } })) as { ok: boolean; data: { text: string; completionTokens: number } };
      off();
      expect(r.ok).toBe(true);
      expect(r.data.completionTokens).toBeGreaterThan(0);
      expect(texts.length).toBe(r.data.completionTokens);
      expect(texts.at(-1)).toBe(r.data.text);
      expect(spawned).toHaveLength(1);
      expect(spawned[0]).toMatch(/workerMain\.(ts|js)$/);
    } finally {
      await host.close();
    }
  }, 300_000);
});
