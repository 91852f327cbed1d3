/**
 * Static checks of the Electron shell's source (issue 10), completing test/app/shell.test.ts,
 * which tests the injected logic (window options, IPC sender checks, navigation guard): here, that
 * the app really goes through that logic —
 * - every BrowserWindow is built from mainWindowOptions and gets the navigation guard;
 * - webPreferences are decided in windowOptions.ts only;
 * - the preload exposes one object with fixed channels (never ipcRenderer itself, never a
 *   renderer-chosen channel);
 * - shell.openExternal is reached only through the guard's allow-list callback;
 * - webviews are refused for every web contents.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(process.cwd(), 'src-main');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Source without comments, so a mention in a comment neither satisfies nor trips a check. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const all = sources(SRC).map((f) => ({ file: relative(process.cwd(), f), text: code(f) }));
const main = code(join(SRC, 'app', 'main.ts'));
const preload = code(join(SRC, 'app', 'preload.ts'));

describe('Electron shell source', () => {
  it('creates every BrowserWindow from mainWindowOptions', () => {
    const creations = all.flatMap(({ file, text }) => [...text.matchAll(/new\s+BrowserWindow\s*\(([^)]*)/g)].map((m) => ({ file, args: m[1]!.trim() })));
    expect(creations.length).toBeGreaterThan(0);
    for (const c of creations) expect(c, `${c.file}: new BrowserWindow(${c.args})`).toMatchObject({ args: expect.stringMatching(/^mainWindowOptions\(/) });
  });

  it('decides webPreferences in windowOptions.ts only', () => {
    const files = all.filter(({ text }) => /webPreferences\s*:/.test(text)).map(({ file }) => file);
    expect(files).toEqual([join('src-main', 'app', 'windowOptions.ts')]);
  });

  it('guards the web contents of every window it creates', () => {
    const fns = [...main.matchAll(/function\s+(\w+)\s*\([^)]*\)[^{]*\{([\s\S]*?)\n\}/g)].filter((m) => /new\s+BrowserWindow\s*\(/.test(m[2]!));
    expect(fns.length).toBeGreaterThan(0);
    for (const fn of fns) expect(fn[2], `function ${fn[1]}`).toMatch(/guardContents\(\s*(\w+)\.webContents/);
  });

  it('opens external links only through the navigation guard callback', () => {
    const uses = all.flatMap(({ file, text }) => [...text.matchAll(/shell\.openExternal\s*\(/g)].map(() => file));
    expect([...new Set(uses)]).toEqual([join('src-main', 'app', 'main.ts')]);
    expect(code(join(SRC, 'app', 'navigationGuard.ts'))).toMatch(/if \(isAllowedExternalUrl\(url\)\) openExternal\(url\)/);
    expect(main).toMatch(/guardContents\([^,]+,\s*\(url\)\s*=>\s*void\s+shell\.openExternal\(url\)\)/);
  });

  it('guards every web contents the app creates (web-contents-created), refusing webviews and sub-frame navigation', () => {
    // The wiring moved to shellSetup.ts (prepareShell, which main.ts calls; test/app/shellSetup.test.ts runs it).
    const setup = code(join(SRC, 'app', 'shellSetup.ts'));
    expect(setup).toMatch(/web-contents-created[^\n]*guardContents\(contents,/);
    expect(main).toMatch(/prepareShell\(/);
    const guard = code(join(SRC, 'app', 'navigationGuard.ts'));
    expect(guard).toMatch(/will-attach-webview[^\n]*preventDefault\(\)/);
    expect(guard).toMatch(/will-frame-navigate/);
  });

  it('sets the permission, permission-check and device handlers on the session, and DevTools only when not packaged', () => {
    expect(main).toMatch(/guardSession\(session\.defaultSession\)/);
    expect(main).toMatch(/mainWindowOptions\([^)]*!app\.isPackaged\)/);
    expect(code(join(SRC, 'app', 'windowOptions.ts'))).toMatch(/devTools,/);
  });

  it('exposes one bridge object with fixed channels in the preload', () => {
    const exposed = [...preload.matchAll(/exposeInMainWorld\(\s*'([^']+)'/g)].map((m) => m[1]);
    expect(exposed).toEqual(['fairground']);
    // ipcRenderer itself, or a channel chosen by the page, would hand the renderer all of IPC.
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*[,)]/);
    for (const m of preload.matchAll(/ipcRenderer\.(\w+)\(\s*([^,)]+)/g)) {
      expect(m[2], `ipcRenderer.${m[1]}(${m[2]})`).toMatch(/^[A-Z_]+_CHANNEL$|^'fairground:[a-zA-Z]+'$/);
    }
    expect(preload).not.toMatch(/require\(|process\.|\bfs\b/);
  });

  it('imports electron only under src-main/app', () => {
    const importers = all.filter(({ text }) => /from\s+'electron'|require\('electron'\)/.test(text)).map(({ file }) => file);
    for (const f of importers) expect(f.startsWith(join('src-main', 'app'))).toBe(true);
  });
});
