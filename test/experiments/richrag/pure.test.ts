/**
 * The pure parts of the RichRAG kind: explorer parsing and clean-up, constrained choices, the judge's
 * tie rule, answer highlighting, the window rule and template rendering.
 */
import { describe, expect, it } from 'vitest';
import { RichRagSpec, richRagConditions } from '../../../src-main/api/contract/richrag';
import { choiceConstraint, parseChoice } from '../../../src-main/experiments/richrag/constraints';
import { aspectKey, defaultExplorerMaxTokens, explorerGrammar, normalizeAspects, parseAspectList } from '../../../src-main/experiments/richrag/explorer';
import { commonRunMask, highlightSegments } from '../../../src-main/experiments/richrag/highlight';
import { combineVerdicts, verdictOf } from '../../../src-main/experiments/richrag/judge';
import { candidateLine, windowCount } from '../../../src-main/experiments/richrag/listwiseRanker';
import { renderTemplate } from '../../../src-main/experiments/richrag/templates';

describe('explorer output', () => {
  it('parses a complete list, a {"aspects"} object, and repairs a list cut anywhere', () => {
    expect(parseAspectList('["a", "b c"]')).toEqual({ items: ['a', 'b c'], complete: true });
    expect(parseAspectList('{"aspects": ["x"]}')).toEqual({ items: ['x'], complete: true });
    const full = '["cooling centres", "water \\"supply\\"", "vulnerable residents"]';
    for (let cut = 0; cut <= full.length; cut++) {
      const r = parseAspectList(full.slice(0, cut));
      expect(Array.isArray(r.items)).toBe(true);
      // Every recovered item is a complete item of the full list, in order.
      expect(['cooling centres', 'water "supply"', 'vulnerable residents'].slice(0, r.items.length)).toEqual(r.items);
    }
    expect(parseAspectList('no list at all')).toEqual({ items: [], complete: false });
    expect(parseAspectList('[1, 2]').items).toEqual([]);
  });

  it('strips a copy of the question, drops empties and normalised duplicates, and caps at C', () => {
    const q = 'How do I compost?';
    expect(normalizeAspects(['How do I compost?: bins', '  Bins ', 'BINS!', '', '   ', 'green  material', 'exclusions', 'using it'], q, 3)).toEqual(['bins', 'green material', 'exclusions']);
    expect(aspectKey('Ｃooling — Centres!')).toBe('cooling centres');
  });

  it('bounds the grammar so the default maxTokens always lets the list close', () => {
    expect(explorerGrammar(3, 20)).toContain('{0,2}');
    expect(explorerGrammar(1, 20)).not.toContain('{0,');
    // "[" + 3 × ('"' + 20 chars + '"') + 2 × ", " + "]" = 2 + 66 + 4 = 72 ≤ 2 + 3·24
    expect(defaultExplorerMaxTokens(3, 20)).toBeGreaterThanOrEqual(72);
  });
});

describe('constrained choices', () => {
  it('builds a GBNF alternation or a JSON-schema enum with enough tokens', () => {
    expect(choiceConstraint(['D1', 'D12'], 'grammar')).toEqual({ grammar: 'root ::= "D1" | "D12"', maxTokens: 4 });
    const j = choiceConstraint(['A', 'B', 'tie'], 'json-schema');
    expect(j.jsonSchema).toMatchObject({ properties: { choice: { enum: ['A', 'B', 'tie'] } }, required: ['choice'] });
  });

  it('reads a choice from bare text, JSON or free text, never a prefix of a longer id', () => {
    expect(parseChoice('D12', ['D1', 'D12'])).toBe('D12');
    expect(parseChoice('{"choice": "D1"}', ['D1', 'D12'])).toBe('D1');
    expect(parseChoice('I pick D12 here', ['D1', 'D12'])).toBe('D12');
    expect(parseChoice('D3', ['D1', 'D12'])).toBeNull();
  });
});

describe('judge', () => {
  it('maps each order to system/baseline and applies the tie rule', () => {
    expect(verdictOf('A', true)).toBe('system');
    expect(verdictOf('A', false)).toBe('baseline');
    expect(verdictOf('B', false)).toBe('system');
    expect(verdictOf('tie', true)).toBe('tie');
    expect(combineVerdicts(['system', 'system'])).toBe('win');
    expect(combineVerdicts(['system', 'tie'])).toBe('win');
    expect(combineVerdicts(['tie', 'baseline'])).toBe('loss');
    expect(combineVerdicts(['system', 'baseline'])).toBe('tie'); // contradicting: position bias
    expect(combineVerdicts(['tie', 'tie'])).toBe('tie');
    expect(combineVerdicts([])).toBe('tie');
  });
});

describe('highlighting', () => {
  it('marks answer words inside common runs of at least 3 words, per sub-answer', () => {
    expect(commonRunMask(['a', 'b', 'c', 'x', 'a', 'b'], ['a', 'b', 'c', 'd'])).toEqual([true, true, true, false, false, false]);
    const segs = highlightSegments('Open cooling centres early, and water gardens in the morning.', ['use cooling centres early on', 'water gardens in the morning and fix leaks']);
    expect(segs.map((s) => s.text).join('')).toBe('Open cooling centres early, and water gardens in the morning.');
    expect(segs.filter((s) => s.subAnswers.length > 0).map((s) => [s.text, s.subAnswers])).toEqual([
      ['cooling centres early', [0]],
      ['water gardens in the morning', [1]],
    ]);
    expect(highlightSegments('nothing shared here', ['other words entirely'])).toEqual([{ text: 'nothing shared here', subAnswers: [] }]);
  });
});

describe('ranker windows and prompts', () => {
  it('counts windows: the first W, then W − k new candidates per window', () => {
    expect(windowCount(5, 8, 3)).toBe(1);
    expect(windowCount(8, 8, 3)).toBe(1);
    expect(windowCount(9, 8, 3)).toBe(2);
    expect(windowCount(13, 8, 3)).toBe(2);
    expect(windowCount(14, 8, 3)).toBe(3);
  });

  it('shows a candidate with its aspect numbers', () => {
    expect(candidateLine({ id: 'x', label: 'D2', title: 'T', text: 'one two three four', aspects: ['b', 'a', 'z'] }, 2, ['a', 'b'])).toBe('[D2] T: one two … (aspects 2, 1, z)');
  });

  it('renders a template in one pass and refuses unknown placeholders', () => {
    expect(renderTemplate('{{ query }} / {{a}}', { query: '{{a}}', a: 'x' })).toBe('{{a}} / x');
    expect(() => renderTemplate('{{nope}}', {}, 'ranker.template')).toThrow(/ranker.template.*\{\{nope\}\}/);
  });
});

describe('spec', () => {
  const base = { kind: 'richrag', name: 'x', collection: 'c', generator: { model: 'm' } };

  it('fills defaults and names the conditions in table order', () => {
    const spec = RichRagSpec.parse({ ...base, settings: ['predicted', 'golden'] });
    expect(spec.k).toBe(10);
    expect(spec.retrieval).toMatchObject({ topN: 50, capacity: 290, merge: 'round-robin' });
    expect(richRagConditions(spec).map((c) => c.condition)).toEqual([
      'closed-book',
      'retriever',
      'predicted/no-ranker',
      'predicted/rag-fusion',
      'predicted/coverage',
      'predicted/listwise',
      'golden/no-ranker',
      'golden/rag-fusion',
      'golden/coverage',
      'golden/listwise',
    ]);
  });

  it('reports unknown placeholders, a window not above k and unknown conditions by field', () => {
    const r = RichRagSpec.safeParse({ ...base, k: 5, ranker: { window: 5, template: '{{query}} {{candidates}} {{oops}}' }, judge: { enabled: true, baseline: 'golden/coverage' } });
    expect(r.success).toBe(false);
    const issues = r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toContainEqual(expect.stringMatching(/^ranker\.template: unknown placeholder \{\{oops\}\}/));
    expect(issues).toContainEqual(expect.stringMatching(/^ranker\.window: must be larger than k \(5\)/));
    expect(issues).toContainEqual(expect.stringMatching(/^judge\.baseline: no condition 'golden\/coverage'/));
  });
});
