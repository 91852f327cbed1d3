/** A spec with every model it names (`generator`, `agent`, a stage's own `generator`) replaced by one model: the simulated reader of a power simulation or a probe. */
export function withGenerator(value: unknown, model: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withGenerator(v, model));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, k === 'generator' || k === 'agent' ? { model } : withGenerator(v, model)]));
}
