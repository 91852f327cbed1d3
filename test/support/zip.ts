/**
 * Reads a ZIP (stored or deflated entries) from its central directory: the e2e tests open the
 * export bundles the app downloads (issue 26 item 6) with this, and the zip test checks the writer
 * against it and against the system's `unzip` / Python's zipfile where present.
 */
import { inflateRawSync } from 'node:zlib';

export function unzipEntries(buf: Buffer): { name: string; body: Buffer }[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= 0; i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: { name: string; body: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extra = buf.readUInt16LE(p + 30);
    const comment = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + compressed);
    out.push({ name, body: method === 0 ? Buffer.from(raw) : inflateRawSync(raw) });
    p += 46 + nameLen + extra + comment;
  }
  return out;
}

/** A download as its files: a .zip's entries, or the file itself. */
export function filesOf(name: string, body: Buffer): { name: string; body: Buffer }[] {
  return name.endsWith('.zip') ? unzipEntries(body) : [{ name, body }];
}
