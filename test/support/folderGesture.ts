/**
 * Browser mode's gesture for adding an allowed folder (issue 26), as a user makes it: ask for the
 * folder (files.requestFolder), read the one-time code the server printed on its stderr (the
 * terminal where `fairground serve` runs), confirm it (files.confirmFolder). Works for servers in
 * this thread and in the service host's worker thread (whose stderr reaches this process's).
 */
import type { Envelope } from '../../src-main/api/contract/index';

type Call = (method: string, input: unknown) => Promise<Envelope<unknown>>;

/** Collects what is written to this process's stderr until `stop()`; the writes still go through. */
export function captureStderr(): { text: () => string; stop: () => void } {
  const original = process.stderr.write.bind(process.stderr);
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  return { text: () => text, stop: () => void (process.stderr.write = original) };
}

/** The code the server printed for `folder`, waiting up to `timeoutMs` for the line. */
export async function printedCode(read: () => string, folder: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const pattern = new RegExp(`allow the folder ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(Settings → Add folder\\)\\. To allow it, type the code (\\d{6})`);
  for (;;) {
    const all = [...read().matchAll(new RegExp(pattern, 'g'))];
    if (all.length > 0) return all.at(-1)![1]!;
    if (Date.now() > deadline) throw new Error(`no code for ${folder} was printed on stderr`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Allow `folder` the way the user does in Settings → Add folder; the list the server then answers. */
export async function allowFolderByCode(call: Call, folder: string): Promise<Envelope<unknown>> {
  const cap = captureStderr();
  try {
    const asked = await call('files.requestFolder', { path: folder });
    if (!asked.ok) return asked;
    const code = await printedCode(cap.text, (asked.data as { folder: string }).folder);
    return await call('files.confirmFolder', { path: folder, code });
  } finally {
    cap.stop();
  }
}
