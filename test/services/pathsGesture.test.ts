/**
 * Issue 26, the last item: adding an allowed folder is a user gesture, never a plain request.
 * - Desktop ('grants'): the folder chosen in the native folder dialog (`grantFolder`, called by the
 *   main process) is added; a request naming any other folder is refused and nothing is stored.
 * - Browser mode ('folders'): `requestFolder` prints a one-time code where the server runs; only
 *   `confirmFolder` with that code adds the folder. Wrong codes are bounded per code and per process.
 * - Both: removing folders by request stays allowed; the private folders are never allowed.
 * Real folders on disk, the real PathAccess and a JSON-file store like the app's.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_LIFETIME_MS, FolderConfirmations, TRIES_PER_CODE, WRONG_CODES_PER_PROCESS } from '../../src-main/services/folderConfirmations';
import { PathAccess, PathAccessError, type PathAccessMode } from '../../src-main/services/paths';
import { userFoldersStore } from '../../src-main/services/workspaces/userFolders';

let dir: string;
let ws: string;
let data: string;
let other: string;
let keys: string;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'fg-gesture-')));
  ws = join(dir, 'ws');
  data = join(dir, 'data');
  other = join(dir, 'other');
  keys = join(dir, 'keys');
  for (const d of [ws, data, other, keys, join(dir, 'config')]) mkdirSync(d);
  writeFileSync(join(data, 'corpus.tsv'), 'd1\twind\n');
  writeFileSync(join(other, 'corpus.tsv'), 'd1\ttide\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setup(mode: PathAccessMode, clock = { t: 1_000_000 }) {
  const file = join(dir, 'config', `${mode}-${Math.random().toString(36).slice(2)}.json`);
  const lines: string[] = [];
  const confirmations = new FolderConfirmations((l) => lines.push(l), () => clock.t);
  const paths = new PathAccess(mode, ws, userFoldersStore(file), [keys], confirmations);
  const stored = (): unknown => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return null; // never written
    }
  };
  const lastCode = (): string => /code (\d{6})/.exec(lines.at(-1) ?? '')![1]!;
  return { paths, lines, stored, lastCode, clock };
}

function refusal(fn: () => unknown): PathAccessError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PathAccessError);
    return err as PathAccessError;
  }
  throw new Error('expected a refusal');
}

describe('desktop app (grants): a folder is added only through the folder dialog', () => {
  it('a request naming a folder not chosen in the dialog is refused, naming it, and nothing is stored', () => {
    const { paths, stored } = setup('grants');
    const err = refusal(() => paths.setAllowedFoldersFromRequest([data]));
    expect(err.code).toBe('forbidden');
    expect(err.field).toBe('folders[0]');
    expect(err.message).toBe(`folders[0]: ${data} was not chosen in the folder dialog; add it with Settings → Add folder… (a request alone cannot widen what the app may read)`);
    expect(stored()).toBeNull();
    expect(paths.allowedFolders()).toEqual({ mode: 'grants', folders: [ws], userFolders: [] });
    // A file inside it stays unreadable.
    expect(refusal(() => paths.checkFile(join(data, 'corpus.tsv'))).code).toBe('forbidden');
  });

  it('the folder chosen in the dialog is allowed and stored; a second, unchosen one in the same request stores nothing', () => {
    const { paths, stored } = setup('grants');
    expect(paths.grantFolder(data)).toBe(data);
    expect(stored()).toEqual([data]);
    expect(paths.checkFile(join(data, 'corpus.tsv'))).toBe(join(data, 'corpus.tsv'));
    // Keeping the chosen folder and adding an unchosen one: refused at folders[1], the list unchanged.
    expect(refusal(() => paths.setAllowedFoldersFromRequest([data, other])).field).toBe('folders[1]');
    expect(stored()).toEqual([data]);
    expect(refusal(() => paths.checkFile(join(other, 'corpus.tsv'))).code).toBe('forbidden');
    // Removing is a plain request; the folder chosen in this session may be put back.
    expect(paths.setAllowedFoldersFromRequest([]).userFolders).toEqual([]);
    expect(refusal(() => paths.checkFile(join(data, 'corpus.tsv'))).code).toBe('forbidden');
    expect(paths.setAllowedFoldersFromRequest([data]).userFolders).toEqual([data]);
  });

  it('a folder the user added before (stored) may stay in the list; the dialog never allows a private or system folder', () => {
    const { paths } = setup('grants');
    paths.setAllowedFolders([data]); // trusted: as stored by an earlier session
    expect(paths.setAllowedFoldersFromRequest([data]).userFolders).toEqual([data]);
    expect(refusal(() => paths.grantFolder(keys)).message).toMatch(/cannot be allowed/);
    expect(refusal(() => paths.grantFolder('/etc')).code).toBe('forbidden');
    expect(refusal(() => paths.grantFolder('/')).code).toBe('forbidden');
    expect(refusal(() => paths.grantFolder(join(data, 'corpus.tsv'))).code).toBe('validation');
    expect(paths.allowedFolders().userFolders).toEqual([data]);
  });

  it('asking for a terminal code is refused: the desktop app has the dialog', () => {
    const { paths, lines } = setup('grants');
    expect(refusal(() => paths.requestFolder(data)).message).toMatch(/Settings → Add folder…, which opens the folder dialog/);
    expect(lines).toEqual([]);
  });
});

describe('browser mode (folders): a folder is added only with the code printed in the terminal', () => {
  it('a bare request is refused and stores nothing; the code printed for the folder adds it', () => {
    const { paths, stored, lines, lastCode } = setup('folders');
    const err = refusal(() => paths.setAllowedFoldersFromRequest([data]));
    expect(err.code).toBe('forbidden');
    expect(err.message).toContain(`${data} was not confirmed with the code printed in the terminal where fairground serve runs`);
    expect(stored()).toBeNull();

    const asked = paths.requestFolder(data);
    expect(asked).toEqual({ folder: data, expiresAt: new Date(1_000_000 + CODE_LIFETIME_MS).toISOString() });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Fairground: the page asks to allow the folder ${data} \\(Settings → Add folder\\)\\. To allow it, type the code \\d{6} in the page within 5 minutes\\.`));
    // Asking allows nothing yet.
    expect(stored()).toBeNull();
    expect(refusal(() => paths.checkFile(join(data, 'corpus.tsv'))).code).toBe('forbidden');

    expect(paths.confirmFolder(data, lastCode()).userFolders).toEqual([data]);
    expect(stored()).toEqual([data]);
    expect(paths.checkFile(join(data, 'corpus.tsv'))).toBe(join(data, 'corpus.tsv'));
    // A code is used once.
    expect(refusal(() => paths.confirmFolder(data, lastCode())).message).toBe(`path: no code was asked for ${data}; press Add folder first`);
  });

  it('a code is for its folder only, wrong codes are refused, and a code expires after 5 minutes', () => {
    const clock = { t: 5_000 };
    const { paths, lastCode, stored } = setup('folders', clock);
    paths.requestFolder(data);
    const forData = lastCode();
    expect(refusal(() => paths.confirmFolder(other, forData)).message).toBe(`path: no code was asked for ${other}; press Add folder first`);
    const wrong = forData === '000000' ? '000001' : '000000';
    const e = refusal(() => paths.confirmFolder(data, wrong));
    expect([e.code, e.field, e.message]).toEqual(['forbidden', 'code', `code: that is not the code printed in the terminal for ${data}`]);
    clock.t += CODE_LIFETIME_MS + 1;
    expect(refusal(() => paths.confirmFolder(data, forData)).message).toBe(`code: the code for ${data} expired; press Add folder for a new one`);
    expect(stored()).toBeNull();
  });

  it(`a code takes ${TRIES_PER_CODE} tries; after ${WRONG_CODES_PER_PROCESS} wrong codes no folder can be asked for`, () => {
    const { paths, lastCode } = setup('folders');
    paths.requestFolder(data);
    const right = lastCode();
    const wrong = right === '000000' ? '000001' : '000000';
    for (let i = 0; i < TRIES_PER_CODE; i++) expect(refusal(() => paths.confirmFolder(data, wrong)).field).toBe('code');
    // The code is gone after its tries, even the right one.
    expect(refusal(() => paths.confirmFolder(data, right)).field).toBe('path');
    let wrongSoFar = TRIES_PER_CODE;
    while (wrongSoFar < WRONG_CODES_PER_PROCESS) {
      paths.requestFolder(data);
      const w = lastCode() === '000000' ? '000001' : '000000';
      refusal(() => paths.confirmFolder(data, w));
      wrongSoFar++;
    }
    expect(refusal(() => paths.requestFolder(data)).message).toBe('path: too many wrong codes; restart fairground serve to add folders');
    expect(paths.allowedFolders().userFolders).toEqual([]);
  });

  it('the code may be typed with spaces or a dash; private and system folders get no code', () => {
    const { paths, lastCode, lines } = setup('folders');
    paths.requestFolder(other);
    const c = lastCode();
    expect(paths.confirmFolder(other, ` ${c.slice(0, 3)}-${c.slice(3)} `).userFolders).toEqual([other]);
    const n = lines.length;
    expect(refusal(() => paths.requestFolder(keys)).message).toMatch(/cannot be allowed/);
    expect(refusal(() => paths.requestFolder('/proc')).code).toBe('forbidden');
    expect(lines).toHaveLength(n);
  });
});

describe('the CLI (any): the user at their own shell', () => {
  it('sets the folders it is given', () => {
    const { paths } = setup('any');
    expect(paths.setAllowedFoldersFromRequest([data, other]).userFolders).toEqual([data, other]);
  });
});
