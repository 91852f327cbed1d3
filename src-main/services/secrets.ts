/**
 * Remote API keys are never stored as plain text in the workspace (issue 17 item 8): a workspace
 * is a file researchers copy, share and archive. What `remote_endpoints.api_key` holds:
 *
 * - `env:NAME`        the key is read from the environment variable NAME when the server is used
 *                     (`apiKeyEnv` in remotes.add); nothing secret is stored at all;
 * - `safe:BASE64`     sealed with Electron's safeStorage (the OS keychain: Keychain, DPAPI,
 *                     libsecret/kwallet) — the desktop app;
 * - `local:BASE64`    sealed with AES-256-GCM under a per-user key file outside every workspace
 *                     (`FAIRGROUND_KEY_FILE`, else the user's config folder, mode 0600) — browser
 *                     mode and the CLI, where no OS keychain is reachable;
 * - anything else     a plain key written by an older version: sealed when the workspace is next
 *                     opened (`migratePlainKeys`).
 *
 * A sealed key opens only for the user (and machine) that sealed it; elsewhere using the server
 * fails with a message saying to add the key again.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { ApiFailure } from '../api/apiFailure';

/** The part of Electron's `safeStorage` used here (injected by src-main/app, the only code that imports Electron). */
export interface OsCipher {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function isSealed(stored: string): boolean {
  return /^(env|safe|local):/.test(stored);
}

export class SecretStore {
  private key: Buffer | undefined;

  constructor(
    private readonly os: OsCipher | null = null,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  /** Where the per-user key of `local:` seals lives. */
  keyFile(): string {
    if (this.env.FAIRGROUND_KEY_FILE) return this.env.FAIRGROUND_KEY_FILE;
    const base =
      process.platform === 'win32'
        ? (this.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'))
        : process.platform === 'darwin'
          ? join(homedir(), 'Library', 'Application Support')
          : (this.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'));
    return join(base, process.platform === 'linux' ? 'fairground' : 'Fairground', 'secret.key');
  }

  /** What to store for a key typed (`apiKey`) or named (`apiKeyEnv`); null for none. */
  seal(apiKey: string | undefined, apiKeyEnv?: string | undefined): string | null {
    if (apiKeyEnv !== undefined && apiKeyEnv !== '') {
      if (!ENV_NAME.test(apiKeyEnv)) throw new ApiFailure('validation', `apiKeyEnv: '${apiKeyEnv}' is not an environment variable name`, 'apiKeyEnv');
      return `env:${apiKeyEnv}`;
    }
    if (apiKey === undefined || apiKey === '') return null;
    if (this.os?.isEncryptionAvailable()) return `safe:${this.os.encryptString(apiKey).toString('base64')}`;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.localKey(true), iv);
    const body = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
    return `local:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The key to send for a stored value (undefined for none); `what` names the server in errors. */
  open(stored: string | null | undefined, what: string): string | undefined {
    if (stored === null || stored === undefined || stored === '') return undefined;
    const again = `add the key again (remove and re-add the server '${what}')`;
    if (stored.startsWith('env:')) {
      const name = stored.slice(4);
      const value = this.env[name];
      if (value === undefined || value === '') throw new ApiFailure('engine', `the API key of '${what}' is read from the environment variable ${name}, which is not set`);
      return value;
    }
    if (stored.startsWith('safe:')) {
      if (!this.os?.isEncryptionAvailable()) throw new ApiFailure('engine', `the API key of '${what}' is sealed in the desktop app's OS keychain, which this process cannot reach: use the desktop app, or ${again}`);
      try {
        return this.os.decryptString(Buffer.from(stored.slice(5), 'base64'));
      } catch {
        throw new ApiFailure('engine', `the API key of '${what}' was sealed for another user or machine: ${again}`);
      }
    }
    if (stored.startsWith('local:')) {
      const bytes = Buffer.from(stored.slice(6), 'base64');
      const key = this.localKey(false);
      if (!key || bytes.length < 28) throw new ApiFailure('engine', `the API key of '${what}' was sealed for another user or machine (no key at ${this.keyFile()}): ${again}`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(12, 28));
        return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        throw new ApiFailure('engine', `the API key of '${what}' was sealed for another user or machine: ${again}`);
      }
    }
    return stored; // a plain key of an older version, until migratePlainKeys seals it
  }

  /** Seals every plain key a workspace still holds (written before keys were sealed). Returns how many. */
  migratePlainKeys(db: Database): number {
    const rows = db.prepare(`SELECT id, api_key FROM remote_endpoints WHERE api_key IS NOT NULL AND api_key <> ''`).all() as { id: number; api_key: string }[];
    const plain = rows.filter((r) => !isSealed(r.api_key));
    if (plain.length === 0) return 0;
    const update = db.prepare(`UPDATE remote_endpoints SET api_key = ? WHERE id = ? AND api_key = ?`);
    db.transaction(() => {
      for (const r of plain) update.run(this.seal(r.api_key), r.id, r.api_key);
    })();
    return plain.length;
  }

  private localKey(create: true): Buffer;
  private localKey(create: false): Buffer | undefined;
  private localKey(create: boolean): Buffer | undefined {
    if (this.key) return this.key;
    const file = this.keyFile();
    try {
      const k = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      if (k.length === 32) return (this.key = k);
    } catch {
      // not there yet
    }
    if (!create) return undefined;
    const k = randomBytes(32);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      // 'wx': never overwrite a key another process wrote a moment ago (its seals would become unreadable).
      writeFileSync(file, `${k.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      return (this.key = k);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = this.localKey(false);
      if (!other) throw new Error(`${file} exists but holds no 32-byte key; move it away to start a new one (keys sealed with it can no longer be read)`);
      return other;
    }
  }
}
