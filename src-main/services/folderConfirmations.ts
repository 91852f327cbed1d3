/**
 * Browser mode's gesture for adding an allowed folder (issue 26): a page (or anyone holding the
 * server's token) may ask to allow a folder, but the folder is added only with a one-time code that
 * the server prints in the terminal where the user started `fairground serve`. The token travels in
 * the URL; the terminal does not, so a request alone cannot widen what the app may read.
 *
 * Guessing is bounded: a code is 6 random digits, valid 5 minutes and for 3 tries; after 10 wrong
 * codes this process takes no more requests (restart `fairground serve`). One instance per process
 * (`folderConfirmations()`), so switching workspaces does not reset the count.
 */
import { randomInt, timingSafeEqual } from 'node:crypto';

export const CODE_LIFETIME_MS = 5 * 60_000;
export const TRIES_PER_CODE = 3;
export const WRONG_CODES_PER_PROCESS = 10;
const MAX_PENDING = 5;

export type ConfirmOutcome = 'ok' | 'none' | 'expired' | 'wrong' | 'locked';

interface Pending {
  code: string;
  expiresAt: number;
  tries: number;
}

export class FolderConfirmations {
  private readonly pending = new Map<string, Pending>();
  private wrong = 0;

  constructor(
    /** Where the code is shown to the user: the server's terminal (stderr) by default. */
    private readonly announce: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
    private readonly now: () => number = Date.now,
    private readonly draw: () => number = () => randomInt(0, 1_000_000),
  ) {}

  /** Too many wrong codes in this process: no more requests until restart. */
  get locked(): boolean {
    return this.wrong >= WRONG_CODES_PER_PROCESS;
  }

  /** A new code for `folder` (a real path, already checked), printed for the user; when it expires. */
  request(folder: string): { expiresAt: number } {
    if (this.locked) throw new Error('locked');
    this.pending.delete(folder);
    while (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    const code = String(this.draw()).padStart(6, '0');
    const expiresAt = this.now() + CODE_LIFETIME_MS;
    this.pending.set(folder, { code, expiresAt, tries: 0 });
    this.announce(
      `Fairground: the page asks to allow the folder ${folder} (Settings → Add folder). ` +
        `To allow it, type the code ${code} in the page within ${CODE_LIFETIME_MS / 60_000} minutes. If you did not ask for this, do nothing.`,
    );
    return { expiresAt };
  }

  confirm(folder: string, code: string): ConfirmOutcome {
    if (this.locked) return 'locked';
    const p = this.pending.get(folder);
    if (!p) return 'none';
    if (this.now() > p.expiresAt) {
      this.pending.delete(folder);
      return 'expired';
    }
    const given = Buffer.from(code.replace(/[\s-]/g, ''));
    const want = Buffer.from(p.code);
    if (given.length === want.length && timingSafeEqual(given, want)) {
      this.pending.delete(folder);
      return 'ok';
    }
    this.wrong++;
    p.tries++;
    if (p.tries >= TRIES_PER_CODE) this.pending.delete(folder);
    return this.locked ? 'locked' : 'wrong';
  }
}

let shared: FolderConfirmations | undefined;

/** This process's confirmations (the server's terminal). */
export function folderConfirmations(): FolderConfirmations {
  shared ??= new FolderConfirmations();
  return shared;
}
