/** Paths into a spec (`retrievers[0].params.k1`) and what changed between two versions of it: pure, no imports. */

/** `a.b[0].c` → `a`, `a.b`, `a.b[0]`, `a.b[0].c`. */
export function pathPrefixes(path: string): string[] {
  const out: string[] = [];
  for (let i = 1; i < path.length; i++) if (path[i] === '.' || path[i] === '[') out.push(path.slice(0, i));
  out.push(path);
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The paths at which two JSON values differ: `name`, `decoding.maxTokens`, `retrievers[0].params.k1`;
 * an array whose length changed is one path (`queries`), a value that changed type too; '' when the
 * roots themselves differ.
 */
export function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const out: string[] = [];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) out.push(...changedPaths(a[key], b[key], path ? `${path}.${key}` : key));
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.flatMap((x, i) => changedPaths(x, b[i], `${path}[${i}]`));
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
}
