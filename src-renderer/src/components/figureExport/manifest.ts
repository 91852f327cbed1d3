/**
 * The reproducibility manifest inside the figure files themselves (issue 17 item 7): SVG gets a
 * <metadata id="fairground-manifest"> element (the JSON as CDATA), PNG an iTXt chunk with keyword
 * `fairground-manifest` (UTF-8, uncompressed) before IEND, PDF an embedded file (svgToPdf.ts).
 */
export const MANIFEST_KEYWORD = 'fairground-manifest';

/** The SVG with the manifest as its first child (any previous Fairground manifest replaced). */
export function svgWithManifest(svg: string, json: string): string {
  const cleaned = svg.replace(/<metadata id="fairground-manifest">[\s\S]*?<\/metadata>/, '');
  const open = /<svg\b[^>]*>/.exec(cleaned);
  if (!open) throw new Error('SVG: no <svg> element to carry the manifest');
  // "]]>" cannot appear inside CDATA: split it across two sections.
  const cdata = `<![CDATA[${json.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
  const at = open.index + open[0].length;
  return `${cleaned.slice(0, at)}<metadata id="fairground-manifest">${cdata}</metadata>${cleaned.slice(at)}`;
}

/** The manifest JSON an SVG carries, if any. */
export function manifestOfSvg(svg: string): string | undefined {
  const m = /<metadata id="fairground-manifest">([\s\S]*?)<\/metadata>/.exec(svg);
  if (!m) return undefined;
  return m[1]!.replace(/<!\[CDATA\[([\s\S]*?)]]>/g, '$1');
}

let crcTable: Uint32Array | undefined;
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

interface Chunk {
  type: string;
  start: number;
  length: number;
}

function chunks(png: Uint8Array): Chunk[] {
  if (png.length < 8 || SIGNATURE.some((b, i) => png[i] !== b)) throw new Error('PNG: not a PNG file (bad signature)');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: Chunk[] = [];
  let at = 8;
  while (at + 12 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    if (at + 12 + length > png.length) throw new Error(`PNG: chunk ${type} at byte ${at} runs past the end of the file`);
    out.push({ type, start: at, length });
    at += 12 + length;
    if (type === 'IEND') break;
  }
  if (out.at(-1)?.type !== 'IEND') throw new Error('PNG: no IEND chunk');
  return out;
}

/** The PNG with an iTXt chunk `fairground-manifest` holding the JSON, inserted before IEND. */
export function pngWithManifest(png: Uint8Array, json: string): Uint8Array {
  const list = chunks(png);
  const iend = list.at(-1)!;
  const enc = new TextEncoder();
  // keyword NUL compression-flag(0) method(0) language NUL translated-keyword NUL text
  const body = new Uint8Array([...enc.encode(MANIFEST_KEYWORD), 0, 0, 0, 0, 0, ...enc.encode(json)]);
  const typed = new Uint8Array(4 + body.length);
  typed.set(enc.encode('iTXt'), 0);
  typed.set(body, 4);
  const chunk = new Uint8Array(12 + body.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, body.length);
  chunk.set(typed, 4);
  view.setUint32(8 + body.length, crc32(typed));
  const out = new Uint8Array(png.length + chunk.length);
  out.set(png.subarray(0, iend.start), 0);
  out.set(chunk, iend.start);
  out.set(png.subarray(iend.start), iend.start + chunk.length);
  return out;
}

/** The manifest JSON of a PNG's `fairground-manifest` iTXt chunk (its CRC checked), if any. */
export function manifestOfPng(png: Uint8Array): string | undefined {
  for (const c of chunks(png)) {
    if (c.type !== 'iTXt') continue;
    const typed = png.subarray(c.start + 4, c.start + 8 + c.length);
    const crc = new DataView(png.buffer, png.byteOffset + c.start + 8 + c.length, 4).getUint32(0);
    if (crc !== crc32(typed)) throw new Error(`PNG: bad CRC in the iTXt chunk at byte ${c.start}`);
    const body = typed.subarray(4);
    const nul = body.indexOf(0);
    if (new TextDecoder().decode(body.subarray(0, nul)) !== MANIFEST_KEYWORD) continue;
    let at = nul + 3; // NUL, compression flag, method
    at = body.indexOf(0, at) + 1; // language tag
    at = body.indexOf(0, at) + 1; // translated keyword
    return new TextDecoder().decode(body.subarray(at));
  }
  return undefined;
}

/** Bytes of a data: URL (base64 or percent-encoded). */
export function dataUrlBytes(url: string): Uint8Array {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw new Error('not a data: URL');
  const head = url.slice(5, comma);
  const body = url.slice(comma + 1);
  if (head.endsWith(';base64')) {
    const bin = atob(body);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  return new TextEncoder().encode(decodeURIComponent(body));
}

/** Text of a percent-encoded or base64 data: URL (plotly's SVG). */
export function dataUrlText(url: string): string {
  return new TextDecoder().decode(dataUrlBytes(url));
}
