/**
 * End to end (issue 26, the last item), browser mode in Chromium at 1366×768: Settings → Add folder
 * asks the server, which prints a one-time code in its terminal (stderr); the folder is allowed only
 * once that code is typed in the page. A wrong code is refused and shown; a bare API call with the
 * page's token cannot add a folder; removing one is a click.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser, screenshot } from '../support/browser';
import { captureStderr, printedCode } from '../support/folderGesture';

let dir: string;
let data: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'fg-e2e-folders-')));
  data = join(dir, 'data');
  mkdirSync(join(dir, 'ws'));
  mkdirSync(data);
  writeFileSync(join(data, 'corpus.jsonl'), '{"id": "d1", "text": "tidal power"}\n');
  app = await startBrowserMode({ workspacePath: join(dir, 'ws', 'w.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('workspace-indicator').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, input: unknown): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string } } }> {
  const res = await fetch(`${app.server.url}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

describe('Settings → Add folder in browser mode', () => {
  it('a bare API call with the token cannot add a folder, and its files stay unreadable', async () => {
    const r = await api('files.setAllowedFolders', { folders: [data] });
    expect(r.status).toBe(403);
    expect(r.body.error!.message).toContain(`${data} was not confirmed with the code printed in the terminal where fairground serve runs`);
    expect((await api('collections.previewFile', { path: join(data, 'corpus.jsonl'), kind: 'corpus' })).status).toBe(403);
    expect(app.services.paths.allowedFolders().userFolders).toEqual([]);
  });

  it('the folder is allowed only with the code printed in the terminal; a wrong code is shown as refused', async () => {
    await page.locator('nav a[data-screen="settings"]').click();
    await page.getByTestId('allowed-folders').waitFor();
    const cap = captureStderr();
    let code: string;
    try {
      await page.getByTestId('allowed-folder-input').fill(data);
      await page.getByTestId('allowed-folder-add').click();
      await page.getByTestId('folder-code-form').waitFor();
      code = await printedCode(cap.text, data);
    } finally {
      cap.stop();
    }
    expect(await page.getByTestId('folder-code-form').textContent()).toContain(`To allow ${data}, type the code printed in the terminal where fairground serve runs`);
    // The code's field is the next step: focused, in view.
    expect(await page.getByTestId('folder-code-input').evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(true);
    expect(await page.getByTestId('folder-code-input').isVisible()).toBe(true);
    const box = (await page.getByTestId('folder-code-input').boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(768);
    // Asking allowed nothing yet.
    expect(await page.getByTestId('allowed-folders').textContent()).not.toContain(data);
    expect(app.services.paths.allowedFolders().userFolders).toEqual([]);
    await screenshot(page, 'settings-folder-code');

    // A wrong code: refused, said so, nothing allowed; the form stays for the right one.
    await page.getByTestId('folder-code-input').fill(code === '000000' ? '000001' : '000000');
    await page.getByTestId('folder-code-confirm').click();
    await expect.poll(() => page.getByTestId('error').filter({ hasText: 'not the code printed in the terminal' }).count()).toBe(1);
    expect(app.services.paths.allowedFolders().userFolders).toEqual([]);

    await page.getByTestId('folder-code-input').fill(code);
    await page.getByTestId('folder-code-confirm').click();
    await expect.poll(() => page.getByTestId('allowed-folders').textContent()).toContain(data);
    expect(await page.getByTestId('folder-code-form').count()).toBe(0);
    expect(app.services.paths.allowedFolders().userFolders).toEqual([data]);
    expect((await api('collections.previewFile', { path: join(data, 'corpus.jsonl'), kind: 'corpus' })).body.ok).toBe(true);
    // Nothing on the screen is wider than the window.
    expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(1366);
  });

  it('removing a folder is one click, and then its files are refused again', async () => {
    const row = page.getByTestId('allowed-folders').locator('li', { hasText: data });
    await row.getByRole('button', { name: 'remove' }).click();
    await expect.poll(() => page.getByTestId('allowed-folders').textContent()).not.toContain(data);
    expect(app.services.paths.allowedFolders().userFolders).toEqual([]);
    expect((await api('collections.previewFile', { path: join(data, 'corpus.jsonl'), kind: 'corpus' })).status).toBe(403);
  });
});
