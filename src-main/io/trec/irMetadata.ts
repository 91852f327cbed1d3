/**
 * ir_metadata (PRIMAD) headers for run files (conventions.md §4, D6; irgroup/ir_metadata
 * `docs/metadata/overview.md`, schema-version 0.1): YAML between `ir_metadata.start` and
 * `ir_metadata.end`, every line prefixed with `# ` so that trec_eval and our reader skip it as a
 * comment. Top-level keys come in the schema's order: schema-version, run-version, tag, then the
 * PRIMAD components platform, research goal, implementation, method, actor, data, then any others.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { DataError } from '../../core/errors';
import { splitLines } from '../lines';

export interface IrMetadata {
  /** Default 0.1 (the current ir_metadata schema). */
  'schema-version'?: string | number;
  'run-version'?: string | number;
  tag?: string;
  platform?: unknown;
  'research goal'?: unknown;
  implementation?: unknown;
  method?: unknown;
  actor?: unknown;
  data?: unknown;
  [key: string]: unknown;
}

const KEY_ORDER = ['schema-version', 'run-version', 'tag', 'platform', 'research goal', 'implementation', 'method', 'actor', 'data'];
const START = '# ir_metadata.start';
const END = '# ir_metadata.end';

let yamlModule: typeof Yaml | undefined;
/** The YAML library, loaded on first use: what imports this file to write plain runs (a Fair RAG export) does not load it at start-up. */
function yaml(): typeof Yaml {
  return (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

/** The metadata as a YAML document in the schema's key order (a sidecar file `RUN.ir_metadata.yaml`). */
export function formatIrMetadataYaml(meta: IrMetadata): string {
  const ordered: Record<string, unknown> = { 'schema-version': 0.1 };
  for (const key of KEY_ORDER) if (meta[key] !== undefined) ordered[key] = meta[key];
  for (const [key, value] of Object.entries(meta)) if (!KEY_ORDER.includes(key) && value !== undefined) ordered[key] = value;
  // lineWidth 0: never fold long strings, a folded line would still be valid but harder to grep.
  return yaml().stringify(ordered, { lineWidth: 0 });
}

export function formatIrMetadataHeader(meta: IrMetadata): string {
  const body = splitLines(formatIrMetadataYaml(meta)).map(({ text }) => (text === '' ? '#' : `# ${text}`));
  return [START, ...body, END].join('\n') + '\n';
}

/**
 * The ir_metadata block at the head of a run file, or undefined when there is none. Lines before
 * the block may only be comments or blank; the block must be closed.
 */
export function parseIrMetadataHeader(text: string, file?: string): IrMetadata | undefined {
  const lines = splitLines(text.replace(/^\uFEFF/, ''));
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.text.trim();
    if (t === START || t === '#ir_metadata.start') {
      start = i;
      break;
    }
    if (t !== '' && !t.startsWith('#')) return undefined;
  }
  if (start < 0) return undefined;
  const body: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const { text: t, line } = lines[i]!;
    const trimmed = t.trim();
    if (trimmed === END || trimmed === '#ir_metadata.end') {
      let value: unknown;
      try {
        value = yaml().parse(body.join('\n'));
      } catch (err) {
        throw new DataError(`ir_metadata: invalid YAML (${(err as Error).message.split('\n')[0]})`, { file, line });
      }
      if (value === null || value === undefined) return {};
      if (typeof value !== 'object' || Array.isArray(value)) throw new DataError('ir_metadata: expected a YAML mapping', { file, line });
      return value as IrMetadata;
    }
    if (!t.startsWith('#')) throw new DataError('ir_metadata: block not closed with ir_metadata.end', { file, line });
    body.push(t.startsWith('# ') ? t.slice(2) : t.slice(1));
  }
  throw new DataError('ir_metadata: block not closed with ir_metadata.end', { file });
}
