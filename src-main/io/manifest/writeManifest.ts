/**
 * Writes a manifest beside the export it describes, as `<export>.manifest.json`, atomically: the
 * JSON goes to a temporary file in the same folder, is flushed to disk, and is then renamed over
 * the target, so a reader never sees a half-written manifest (rename within one file system is
 * atomic on POSIX and replaces the target on Windows). The export's SHA-256 and size are recorded
 * so the pair can be checked later, and secrets are redacted once more at the last moment.
 */
import { createHash } from 'node:crypto';
import { fsyncSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ReproducibilityManifest } from './manifest';
import { redactSecrets } from './redactSecrets';
import { checkOutputTarget, openPartialOutput, type OutputTarget, type OutputTargetOptions } from '../outputTarget';

export function manifestPathFor(exportPath: string): string {
  return `${exportPath}.manifest.json`;
}

/**
 * Returns the manifest path. The export must already exist (its hash is part of the manifest). `target`: the manifest's
 * path as checked by the caller before it wrote the export (`checkOutputTargets`), so that a refused sidecar is found
 * before anything is written; without it the path is checked here.
 */
export async function writeManifestBeside(exportPath: string, manifest: ReproducibilityManifest, target?: OutputTarget): Promise<string> {
  const bytes = await readFile(exportPath);
  const withExport: ReproducibilityManifest = {
    ...manifest,
    export: { ...manifest.export, file: path.basename(exportPath), sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length },
  };
  const checked = target ?? checkOutputTarget(manifestPathFor(exportPath));
  writeCheckedAtomic(checked, `${JSON.stringify(redactSecrets(withExport), null, 2)}\n`);
  return checked.path;
}

/** Write `text` to `given` via a temporary sibling, flushed to disk, then renamed (the path checked first). */
export function writeFileAtomic(given: string, text: string, options: OutputTargetOptions = {}): Promise<void> {
  try {
    writeCheckedAtomic(checkOutputTarget(given, given, options), text);
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

function writeCheckedAtomic(target: OutputTarget, text: string): void {
  const partial = openPartialOutput(target);
  try {
    partial.write(text);
    fsyncSync(partial.fd);
  } catch (err) {
    partial.abort();
    throw err;
  }
  partial.commit();
}
