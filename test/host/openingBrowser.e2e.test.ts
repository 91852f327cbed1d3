/**
 * Issue 25 item 2: `fairground serve` serves the app page before the workspace is open. The
 * opening is held (beforeOpen) while the page is fetched and shown in Chromium: the page answers
 * 200, `app.startup` says 'opening', an API call made meanwhile waits (it is not refused), and the
 * UI shows "Opening workspace…" with the step. Released, the workspace opens in the host thread,
 * the waiting call answers, and the UI shows the normal screen. A workspace that cannot be opened
 * (a 0-byte file) leaves the page served, `app.startup` 'failed' with the store's reason, every
 * other call a `workspace` error naming it, the UI the reason, and `opened` rejected.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpeningBrowserMode } from '../../src-main/server/openingBrowserMode';
import { launchBrowser } from '../support/browser';

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-opening-'));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function api(base: string, token: string, method: string, input: unknown = {}): Promise<{ status: number; body: { ok: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } } }> {
  const res = await fetch(`${base}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: (await res.json()) as never };
}

describe('serve: the app page first, the workspace behind it', () => {
  it('serves the page while the workspace is still opening, shows the step, then the normal screen', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const app = await startOpeningBrowserMode({ workspacePath: join(dir, 'w.fairground'), demo: false, beforeOpen: () => held });
    try {
      const { url, token } = app.server;
      const page200 = await fetch(url);
      expect(page200.status).toBe(200);
      expect(await page200.text()).toContain('<div id="app"');
      const early = await api(url, token, 'app.startup');
      expect(early.status).toBe(200);
      expect(early.body.data).toMatchObject({ state: 'opening', step: 'starting the services' });
      // Made while opening: answered once the workspace is open, not refused.
      let infoDone = false;
      const info = api(url, token, 'workspace.info').then((r) => ((infoDone = true), r));

      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await page.goto(app.server.launchUrl);
      const opening = page.locator('main section.opening[data-startup="opening"]');
      await opening.waitFor();
      expect(await opening.locator('h1').textContent()).toBe('Opening workspace…');
      expect(await opening.textContent()).toContain('starting the services');
      expect(infoDone).toBe(false);

      release();
      const answered = await info;
      expect(answered.status).toBe(200);
      expect(answered.body.data?.path).toBe(join(dir, 'w.fairground'));
      await app.opened;
      expect((await api(url, token, 'app.startup')).body.data).toMatchObject({ state: 'ready', step: 'ready' });
      // The normal screen: the workspace badge names the file, the opening panel is gone.
      await page.getByTestId('workspace-indicator').getByText('w.fairground').waitFor();
      await page.getByTestId('screen-collections').waitFor();
      expect(await page.locator('section.opening').count()).toBe(0);
      await page.close();
    } finally {
      release();
      await app.close();
    }
  }, 120_000);

  it('a workspace that cannot be opened: the page is served and says why, calls answer the reason', async () => {
    const empty = join(dir, 'empty.fairground');
    writeFileSync(empty, '');
    const app = await startOpeningBrowserMode({ workspacePath: empty, demo: false });
    try {
      const { url, token } = app.server;
      expect((await fetch(url)).status).toBe(200);
      await expect(app.opened).rejects.toThrow(/empty/i);
      const startup = (await api(url, token, 'app.startup')).body.data as { state: string; error: string };
      expect(startup.state).toBe('failed');
      expect(startup.error).toMatch(/empty/i);
      expect(startup.error).toContain('empty.fairground');
      const call = await api(url, token, 'collections.list');
      expect(call.status).toBe(409);
      expect(call.body.error?.code).toBe('workspace');
      expect(call.body.error?.message).toBe(`the workspace could not be opened: ${startup.error}`);
      const page = await browser.newPage();
      await page.goto(app.server.launchUrl);
      const failed = page.locator('main section.opening[data-startup="failed"]');
      await failed.waitFor();
      expect(await failed.locator('h1').textContent()).toBe('The workspace could not be opened');
      expect(await failed.textContent()).toContain(startup.error);
      await page.close();
    } finally {
      await app.close();
    }
  }, 120_000);
});
