/**
 * Writes a manifest beside the export it describes, as `<export>.manifest.json`, atomically: the
 * JSON goes to a temporary file in the same folder, is flushed to disk, and is then renamed over
 * the target, so a reader never sees a half-written manifest (rename within one file system is
 * atomic on POSIX and replaces the target on Windows). The export's SHA-256 and size are recorded
 * so the pair can be checked later, and secrets are redacted once more at the last moment.
 */
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ReproducibilityManifest } from './manifest';
import { redactSecrets } from './redactSecrets';
import { outputTargetPath } from '../outputTarget';

export function manifestPathFor(exportPath: string): string {
  return `${exportPath}.manifest.json`;
}

/** Returns the manifest path. The export must already exist (its hash is part of the manifest). */
export async function writeManifestBeside(exportPath: string, manifest: ReproducibilityManifest): Promise<string> {
  const bytes = await readFile(exportPath);
  const withExport: ReproducibilityManifest = {
    ...manifest,
    export: { ...manifest.export, file: path.basename(exportPath), sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length },
  };
  const target = manifestPathFor(exportPath);
  await writeFileAtomic(target, `${JSON.stringify(redactSecrets(withExport), null, 2)}\n`);
  return target;
}

/** Write `text` to `target` via a temporary sibling and rename. */
export async function writeFileAtomic(given: string, text: string): Promise<void> {
  const target = outputTargetPath(given);
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
