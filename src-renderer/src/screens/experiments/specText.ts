/**
 * Experiment specs as text: JSON or YAML in (the import of a spec file), JSON or YAML out (the
 * export). Parsing here only turns text into data; the kind's schema is checked by the service
 * (experiments.validateSpec), which names every problem by its field path.
 */
import { parseDocument, stringify } from 'yaml';

export type SpecFormat = 'json' | 'yaml';

/** JSON for `.json` files or text that starts with `{`, YAML otherwise; errors name the line. */
export function parseSpecText(text: string, fileName = ''): unknown {
  const body = text.replace(/^\uFEFF/, '');
  if (/\.json$/i.test(fileName) || (!/\.ya?ml$/i.test(fileName) && body.trimStart().startsWith('{'))) {
    try {
      return JSON.parse(body) as unknown;
    } catch (err) {
      throw new Error(`invalid JSON${fileName ? ` in ${fileName}` : ''}: ${(err as Error).message}`);
    }
  }
  const doc = parseDocument(body, { prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line;
    throw new Error(`invalid YAML${fileName ? ` in ${fileName}` : ''}${line ? ` (line ${line})` : ''}: ${err.message.split('\n')[0]}`);
  }
  return doc.toJS() as unknown;
}

export function formatSpec(spec: unknown, format: SpecFormat): string {
  return format === 'json' ? `${JSON.stringify(spec, null, 2)}\n` : stringify(spec, { lineWidth: 0 });
}

/** A file name for a spec export: the experiment name with unsafe characters replaced. */
export function specFileName(name: string, format: SpecFormat): string {
  const base = name.trim().replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'experiment';
  return `${base}.spec.${format === 'json' ? 'json' : 'yaml'}`;
}
