/**
 * End to end (issue 36 item 2), browser mode in Chromium: a workspace kept directly in the home folder (a fake HOME)
 * allows no folder, so the Import dialog's file browser says what to do — add the data folder in Settings — instead of
 * an empty or broken list; once the folder is added (the code printed in the terminal) its files are listed, and a
 * credential folder inside it is not.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-main/api/contract/index';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser, openJobTray } from '../support/browser';
import { allowFolderByCode } from '../support/folderGesture';

let home: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
const ENV_KEYS = ['HOME', 'FAIRGROUND_CONFIG_DIR', 'FAIRGROUND_KEY_FILE', 'XDG_CONFIG_HOME'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'fg-e2e-home-')));
  mkdirSync(join(home, '.aws'));
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = SECRET-e2e-aws\n');
  mkdirSync(join(home, 'data'));
  writeFileSync(join(home, 'data', 'corpus.jsonl'), '{"id": "d1", "text": "tidal power"}\n');
  symlinkSync(join(home, '.aws'), join(home, 'data', 'aws'));
  for (const k of ENV_KEYS) delete process.env[k];
  process.env.HOME = home;
  app = await startBrowserMode({ workspacePath: join(home, 'lab.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 860 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('workspace-indicator').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  if (home) rmSync(home, { recursive: true, force: true });
});

async function call(method: string, input: unknown): Promise<Envelope<unknown>> {
  const res = await fetch(`${app.server.url}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
    body: JSON.stringify(input),
  });
  return (await res.json()) as Envelope<unknown>;
}

async function openBrowser(): Promise<void> {
  await page.locator('nav a[data-screen="collections"]').click();
  await openJobTray(page);
  await page.getByTestId('import-open').click();
  const dialog = page.getByTestId('import-dialog');
  await dialog.waitFor();
  await page.getByTestId('import-kind').selectOption('corpus');
  await dialog.locator('input[name="mode"][value="path"]').check();
  await dialog.getByTestId('import-browse').click();
  await dialog.getByTestId('path-browser').waitFor();
}

describe('a workspace in the home folder (browser mode)', () => {
  it('the file browser says no folder is allowed and what to do, not an empty list', async () => {
    await openBrowser();
    const none = page.getByTestId('pb-no-folder');
    await none.waitFor();
    await expect.poll(() => none.textContent()).toContain('your home folder');
    const text = (await none.textContent()) ?? '';
    expect(text).toContain('No folder can be browsed yet.');
    expect(text).toContain('Settings → Add folder');
    expect(text).toContain(`this workspace is kept in your home folder (${home})`);
    expect(await page.getByTestId('path-browser').locator('select').count()).toBe(0);
    expect(await page.content()).not.toContain('SECRET-e2e-aws');
    // Settings says the same where folders are added.
    await page.keyboard.press('Escape');
    await page.locator('nav a[data-screen="settings"]').click();
    await page.getByTestId('allowed-folders-none').waitFor();
    expect(await page.getByTestId('allowed-folders-none').textContent()).toContain('a workspace kept in your home folder does not allow it');
  });

  it('once the data folder is added its files are listed, the credential folder linked into it is not', async () => {
    expect(await allowFolderByCode(call, join(home, 'data'))).toMatchObject({ ok: true });
    await page.reload();
    await page.getByTestId('workspace-indicator').waitFor();
    await openBrowser();
    const browserBox = page.getByTestId('path-browser');
    await browserBox.getByTestId('pb-file').first().waitFor();
    expect(await browserBox.getByTestId('pb-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['corpus.jsonl']);
    expect(await browserBox.getByTestId('pb-folder').count()).toBe(0);
    expect(await page.getByTestId('pb-no-folder').count()).toBe(0);
  });
});
