/**
 * A ZIP archive of a few files, stored without compression (PKWARE APPNOTE 6.3.x: local file
 * headers, central directory, end of central directory; method 0, CRC-32, UTF-8 names flagged by
 * bit 11). Pure and deterministic (every entry dated 1980-01-01 00:00), so the same files give the
 * same bytes. Used to download an export together with its manifest as one file (issue 26 item 6).
 * Readable by unzip, Python's zipfile, R's unzip() and every OS's archive tool.
 */

export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

let table: Uint32Array | undefined;

export function crc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of data) crc = table[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01

export function zipStored(entries: readonly ZipEntry[]): Uint8Array {
  const enc = new TextEncoder();
  const names = entries.map((e) => enc.encode(e.name));
  const seen = new Set<string>();
  for (const e of entries) {
    if (!e.name || e.name.startsWith('/') || e.name.split(/[\\/]/).includes('..')) throw new RangeError(`zip entry name '${e.name}' must be a relative path without '..'`);
    if (seen.has(e.name)) throw new RangeError(`zip entry '${e.name}' given twice`);
    seen.add(e.name);
    if (e.data.length > 0xfffffffe) throw new RangeError(`zip entry '${e.name}' is too large for a ZIP without ZIP64`);
  }
  const localSize = entries.reduce((s, e, i) => s + 30 + names[i]!.length + e.data.length, 0);
  const centralSize = entries.reduce((s, _, i) => s + 46 + names[i]!.length, 0);
  const out = new Uint8Array(localSize + centralSize + 22);
  const view = new DataView(out.buffer);
  let p = 0;
  const u16 = (v: number) => {
    view.setUint16(p, v, true);
    p += 2;
  };
  const u32 = (v: number) => {
    view.setUint32(p, v >>> 0, true);
    p += 4;
  };
  const offsets: number[] = [];
  const crcs = entries.map((e) => crc32(e.data));
  entries.forEach((e, i) => {
    offsets.push(p);
    u32(0x04034b50);
    u16(20); // version needed
    u16(0x0800); // UTF-8 names
    u16(0); // stored
    u16(0); // time
    u16(DOS_DATE);
    u32(crcs[i]!);
    u32(e.data.length);
    u32(e.data.length);
    u16(names[i]!.length);
    u16(0);
    out.set(names[i]!, p);
    p += names[i]!.length;
    out.set(e.data, p);
    p += e.data.length;
  });
  const central = p;
  entries.forEach((e, i) => {
    u32(0x02014b50);
    u16(20); // made by
    u16(20);
    u16(0x0800);
    u16(0);
    u16(0);
    u16(DOS_DATE);
    u32(crcs[i]!);
    u32(e.data.length);
    u32(e.data.length);
    u16(names[i]!.length);
    u16(0); // extra
    u16(0); // comment
    u16(0); // disk
    u16(0); // internal attributes
    u32(0); // external attributes
    u32(offsets[i]!);
    out.set(names[i]!, p);
    p += names[i]!.length;
  });
  const centralBytes = p - central;
  u32(0x06054b50);
  u16(0);
  u16(0);
  u16(entries.length);
  u16(entries.length);
  u32(centralBytes);
  u32(central);
  u16(0);
  return out;
}
