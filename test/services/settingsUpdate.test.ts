import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsService } from '../../src-main/services/settingsService';
import { openWorkspace } from '../../src-main/store/workspace';

describe('SettingsService.update writes only what changes (issue 25: `run --threads 1` on every run)', () => {
  it('an unchanged value commits nothing (the file is not written); a changed one is stored with a new time', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-settings-'));
    const ws = openWorkspace(join(dir, 'ws.fairground'));
    try {
      const s = new SettingsService(ws.db, { logical: () => 8, physical: () => 4 });
      const row = () => ws.db.prepare(`SELECT value, updated_at FROM settings WHERE key = 'threads'`).get() as { value: string; updated_at: string } | undefined;
      const dataVersion = () => ws.db.pragma('data_version', { simple: true }) as number;
      const changes = () => (ws.db.prepare(`SELECT total_changes() AS n`).get() as { n: number }).n;
      expect(row()).toBeUndefined();
      expect(s.update({ threads: 1 }).threads).toBe(1);
      const first = row()!;
      expect(first.value).toBe('1');
      const before = changes();
      const version = dataVersion();
      // The same value again: no statement changes a row.
      expect(s.update({ threads: 1 }).threads).toBe(1);
      expect(changes()).toBe(before);
      expect(row()).toEqual(first);
      expect(dataVersion()).toBe(version);
      // A patch mixing an unchanged and a changed key writes the changed one only.
      s.update({ threads: 1, pageSize: 250 });
      expect(changes()).toBe(before + 1);
      expect(s.get().pageSize).toBe(250);
      expect(row()).toEqual(first);
      // A changed value is stored.
      expect(s.update({ threads: 2 }).threads).toBe(2);
      expect(row()!.value).toBe('2');
      expect(changes()).toBe(before + 2);
    } finally {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
