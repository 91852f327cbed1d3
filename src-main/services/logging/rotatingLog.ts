/**
 * The app's log file (issue 17 item 7): one line per event (`ISO-time LEVEL source: message`),
 * appended synchronously (a line is on disk before a crash that follows it), rotated by size:
 * `fairground.log` → `fairground.1.log` → … → `fairground.<keep>.log`, the oldest dropped. It lives in
 * the user's data folder (beside the default workspace) under `logs/`, or FAIRGROUND_LOG_DIR.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultWorkspacePath } from '../../store/workspacePath';

export type LogLevel = 'info' | 'warn' | 'error';

export interface RotatingLogOptions {
  /** Rotate when the file would pass this many bytes (default 1 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 3). */
  keep?: number;
  now?: () => Date;
}

export function defaultLogFolder(env: Record<string, string | undefined> = process.env): string {
  if (env.FAIRGROUND_LOG_DIR) return env.FAIRGROUND_LOG_DIR;
  const { FAIRGROUND_WORKSPACE: _ignored, ...rest } = env;
  return join(dirname(defaultWorkspacePath(rest)), 'logs');
}

export class RotatingLog {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly now: () => Date;
  private ready = false;

  constructor(
    readonly folder: string,
    options: RotatingLogOptions = {},
  ) {
    this.file = join(folder, 'fairground.log');
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.keep = options.keep ?? 3;
    this.now = options.now ?? (() => new Date());
  }

  /** Append one line; never throws (a log that cannot be written must not take the app down). */
  write(level: LogLevel, source: string, message: string): void {
    const line = `${this.now().toISOString()} ${level.toUpperCase()} ${source}: ${message.replace(/\r?\n/g, '\n    ')}\n`;
    try {
      if (!this.ready) {
        mkdirSync(this.folder, { recursive: true });
        this.ready = true;
      }
      // The file's size is read at every write, not counted: in browser mode the UI process and the
      // service host both write this file, and a count of one's own lines would rotate too late.
      const size = existsSync(this.file) ? statSync(this.file).size : 0;
      if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) this.rotate();
      appendFileSync(this.file, line);
    } catch {
      // Best effort by design.
    }
  }

  /** The last `n` lines of the current file (for diagnostics). */
  tail(n: number): string[] {
    try {
      const lines = readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
      return lines.slice(-n);
    } catch {
      return [];
    }
  }

  private rotate(): void {
    const rotated = (i: number) => join(this.folder, `fairground.${i}.log`);
    rmSync(rotated(this.keep), { force: true });
    for (let i = this.keep - 1; i >= 1; i--) if (existsSync(rotated(i))) renameSync(rotated(i), rotated(i + 1));
    renameSync(this.file, rotated(1));
  }
}
