/** Small display helpers of the collection screens. */

export function truncate(text: string, max = 220): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function shortHash(hash: string): string {
  return hash ? hash.slice(0, 12) : '–';
}

export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** A label as researchers read it: integers plain, other numbers with up to 4 decimals. */
export function formatLabel(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(4).replace(/0+$/, '');
}

export function formatDelta(v: unknown): string {
  if (typeof v !== 'number') return '–';
  const s = formatLabel(v);
  return v > 0 ? `+${s}` : s;
}

/** Attr values shown as chips (provider, group, tag, …), strings and numbers only. */
export function attrChips(attrs: Record<string, unknown>, keys = ['provider', 'group', 'tag', 'author']): [string, string][] {
  const out: [string, string][] = [];
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === 'string' || typeof v === 'number') out.push([k, String(v)]);
  }
  return out;
}

/** base64 of bytes, in chunks (String.fromCharCode has an argument limit). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

/** The head of a file for a preview: at most `max` bytes, cut after the last complete line. */
export function headBytes(bytes: Uint8Array, max = 256 * 1024): Uint8Array {
  if (bytes.length <= max) return bytes;
  const head = bytes.subarray(0, max);
  const nl = head.lastIndexOf(0x0a);
  return nl > 0 ? head.subarray(0, nl + 1) : head;
}
