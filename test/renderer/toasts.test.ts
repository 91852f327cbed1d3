/**
 * Issue 26 item 3: the message surface's rules (src-renderer/src/lib/toasts.ts): identical errors
 * counted instead of stacked, a cap per screen, and API field paths shown as the UI's labels with a
 * fallback that never leaves a bracket path.
 */
import { describe, expect, it } from 'vitest';
import { addToast, fieldLabel, labelMessage, MAX_TOASTS, type Toast } from '../../src-renderer/src/lib/toasts';

let id = 1;
const toast = (message: string, scope = 'settings', kind: Toast['kind'] = 'error'): Toast => ({ id: id++, kind, title: 'Could not change the allowed folders (validation)', message, field: 'Folder 1', scope, count: 1 });

describe('toasts', () => {
  it('an identical error is counted, not stacked; a different one is added after it', () => {
    let list: Toast[] = [];
    for (let i = 0; i < 3; i++) list = addToast(list, toast('Folder 1: the folder must be an absolute path'));
    expect(list.map((t) => [t.message, t.count])).toEqual([['Folder 1: the folder must be an absolute path', 3]]);
    const firstId = list[0]!.id;
    list = addToast(list, toast('Folder 1: no such folder'));
    list = addToast(list, toast('Folder 1: the folder must be an absolute path'));
    // The repeated one keeps its id, counts 4 and moves to the end (newest).
    expect(list.map((t) => [t.id === firstId, t.count])).toEqual([
      [false, 1],
      [true, 4],
    ]);
    // The same message on another screen is another toast.
    expect(addToast(list, toast('Folder 1: no such folder', 'models'))).toHaveLength(3);
  });

  it(`at most ${MAX_TOASTS} per screen, the oldest dropped; other screens untouched`, () => {
    let list: Toast[] = [toast('other screen', 'models')];
    for (let i = 1; i <= 7; i++) list = addToast(list, toast(`error ${i}`));
    expect(list.filter((t) => t.scope === 'settings').map((t) => t.message)).toEqual(['error 4', 'error 5', 'error 6', 'error 7']);
    expect(list.filter((t) => t.scope === 'models')).toHaveLength(1);
  });
});

describe('field labels', () => {
  it('known paths read as the UI names them', () => {
    expect(fieldLabel('folders[0]')).toBe('Folder 1');
    expect(fieldLabel('files[2]')).toBe('File 3');
    expect(fieldLabel('spec.retrieval.k')).toBe('Retrieval → k');
    expect(fieldLabel('spec.conditions[2].alpha')).toBe('Condition 3 → α');
    expect(fieldLabel('spec.generator.modelId')).toBe('Generator → Model');
    expect(fieldLabel('name')).toBe('Name');
    expect(fieldLabel('spec.name')).toBe('Name');
    expect(fieldLabel('mapping.id_column')).toBe('Mapping → Id column');
  });

  it('the fallback never shows a bracket path', () => {
    for (const p of ['a[0][1]', 'spec.x[3]', 'rows.0.cells', 'weird]name', '[0]', 'spec.prompts[0].template']) {
      expect(fieldLabel(p)).not.toMatch(/[[\]]/);
    }
    expect(fieldLabel('a[0][1]')).toBe('a 1.2');
    expect(fieldLabel('rows.0.cells')).toBe('Row 1 → Cells');
    expect(fieldLabel('spec.prompts[0].template')).toBe('Prompt 1 → Template');
  });

  it('the message names the field by its label', () => {
    expect(labelMessage("folders[0]: the folder must be an absolute path, got 'x'", 'folders[0]')).toBe("Folder 1: the folder must be an absolute path, got 'x'");
    expect(labelMessage('spec.retrieval.k must be at most the candidates', 'spec.retrieval.k')).toBe('Retrieval → k must be at most the candidates');
    expect(labelMessage('name: must not be empty', 'name')).toBe('Name: must not be empty');
    expect(labelMessage('the name is taken', 'name')).toBe('the name is taken');
  });
});
