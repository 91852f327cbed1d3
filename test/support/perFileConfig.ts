/**
 * Each test file gets its own app config folder (recent workspaces, allowed folders): the files run
 * in parallel workers, and one file's allowed folders must not change what another's server allows.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.env.FAIRGROUND_CONFIG_DIR ?? join(tmpdir(), `fairground-test-config-${process.pid}`);
mkdirSync(base, { recursive: true });
process.env.FAIRGROUND_CONFIG_DIR = mkdtempSync(join(base, 'file-'));
