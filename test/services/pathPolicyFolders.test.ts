/**
 * Issue 26: the path policy's folder test must go by path components. A string-prefix test (`/x/ws-evil` inside
 * `/x/ws`) let through by the four path-policy test files is killed here; and a subfolder whose name starts with `..`
 * (`/x/ws/..data/f`) was wrongly refused (a real bug: `relative()` gives `..data/f`, which starts with '..').
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSystemPath, isWithinFolder, PathAccess } from '../../src-main/services/paths';

let x: string;
let ws: string;
beforeAll(() => {
  x = realpathSync(mkdtempSync(join(tmpdir(), 'fg-path-folders-')));
  ws = join(x, 'ws');
  for (const d of ['ws/sub', 'ws/..data', 'ws/...', 'ws-evil', 'wsx']) mkdirSync(join(x, d), { recursive: true });
  for (const f of ['ws/sub/f.tsv', 'ws/..data/f.tsv', 'ws/.../f.tsv', 'ws-evil/f.tsv', 'wsx/f.tsv', 'ws/top.tsv']) writeFileSync(join(x, f), 'a\tb\n');
});
afterAll(() => rmSync(x, { recursive: true, force: true }));

describe('isWithinFolder', () => {
  it('goes by path components', () => {
    expect(isWithinFolder('/x/ws', '/x/ws')).toBe(true);
    expect(isWithinFolder('/x/ws/f', '/x/ws')).toBe(true);
    expect(isWithinFolder('/x/ws/..data/f', '/x/ws')).toBe(true);
    expect(isWithinFolder('/x/ws/..', '/x/ws')).toBe(false);
    expect(isWithinFolder('/x/ws-evil/f', '/x/ws')).toBe(false);
    expect(isWithinFolder('/x/ws-evil', '/x/ws')).toBe(false);
    expect(isWithinFolder('/x/wsx', '/x/ws')).toBe(false);
    expect(isWithinFolder('/x', '/x/ws')).toBe(false);
    expect(isWithinFolder('/y/ws/f', '/x/ws')).toBe(false);
  });

  it('system folders too: /etc-data is not under /etc, /etc/..d is', () => {
    expect(isSystemPath('/etc/passwd')).toBe(true);
    expect(isSystemPath('/etc/..d/f')).toBe(true);
    expect(isSystemPath('/etc-data/f')).toBe(false);
  });
});

describe('PathAccess in folders mode with the workspace folder /x/ws', () => {
  it('reads files under ws, its subfolders and a subfolder named ..data or ...', () => {
    const access = new PathAccess('folders', ws);
    for (const f of ['ws/top.tsv', 'ws/sub/f.tsv', 'ws/..data/f.tsv', 'ws/.../f.tsv']) expect(access.checkFile(join(x, f))).toBe(join(x, f));
    expect(access.browse(join(ws, '..data')).entries.map((e) => e.name)).toEqual(['f.tsv']);
  });

  it('refuses a sibling whose name starts with the folder name (ws-evil, wsx): read, browse and create', () => {
    const access = new PathAccess('folders', ws);
    for (const f of ['ws-evil/f.tsv', 'wsx/f.tsv']) expect(() => access.checkFile(join(x, f))).toThrow(/is outside the folders this app may read/);
    expect(() => access.browse(join(x, 'ws-evil'))).toThrow(/is outside the allowed folders/);
    expect(() => access.checkNewFile(join(x, 'ws-evil', 'new.fairground'))).toThrow(/is outside the folders this app may write/);
    expect(access.checkNewFile(join(ws, '..data', 'new.fairground'))).toBe(join(ws, '..data', 'new.fairground'));
  });
});
