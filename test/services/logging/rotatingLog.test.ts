import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultLogFolder, RotatingLog } from '../../../src-main/services/logging/rotatingLog';

const dir = mkdtempSync(join(tmpdir(), 'fg-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('RotatingLog', () => {
  it('writes one line per event and rotates by size, keeping `keep` old files', () => {
    const log = new RotatingLog(join(dir, 'logs'), { maxBytes: 120, keep: 2, now: () => new Date('2026-11-24T12:00:00.000Z') });
    // Each line is 24 + 5 + 5 + 2 + 40 + 1 = 77 bytes: one per file.
    for (let i = 1; i <= 4; i++) log.write('info', 'job', `line ${i} ${'x'.repeat(33)}`);
    expect(readFileSync(log.file, 'utf8')).toBe(`2026-11-24T12:00:00.000Z INFO job: line 4 ${'x'.repeat(33)}\n`);
    expect(readFileSync(join(dir, 'logs', 'fairground.1.log'), 'utf8')).toContain('line 3');
    expect(readFileSync(join(dir, 'logs', 'fairground.2.log'), 'utf8')).toContain('line 2');
    expect(existsSync(join(dir, 'logs', 'fairground.3.log'))).toBe(false); // line 1 was dropped
    log.write('error', 'api', 'two\nlines');
    expect(log.tail(1)).toEqual(['    lines']);
  });

  it('two writers of one folder (UI process and service host) rotate by the file, not by their own counts', () => {
    const folder = join(dir, 'shared');
    const now = () => new Date('2026-11-24T12:00:00.000Z');
    const a = new RotatingLog(folder, { maxBytes: 200, keep: 5, now });
    const b = new RotatingLog(folder, { maxBytes: 200, keep: 5, now });
    // 24 + 5 + 2 + 2 + 40 + 1 = 74 bytes a line ("… INFO a: " + 40 characters): two fit in 200 bytes, a third rotates.
    for (let i = 0; i < 6; i++) (i % 2 ? b : a).write('info', i % 2 ? 'b' : 'a', `${i} ${'y'.repeat(38)}`);
    const files = [join(folder, 'fairground.log'), join(folder, 'fairground.1.log'), join(folder, 'fairground.2.log')];
    const all = files.map((f) => readFileSync(f, 'utf8'));
    for (const text of all) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(200);
    expect(all.map((t) => t.split('\n').filter(Boolean).length)).toEqual([2, 2, 2]);
    // Oldest file first: every line kept, in order.
    expect([...all].reverse().join('').match(/(?<=: )\d(?= )/g)).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  it('lives beside the default workspace, not beside one named by FAIRGROUND_WORKSPACE', () => {
    expect(defaultLogFolder({ XDG_DATA_HOME: '/data', FAIRGROUND_WORKSPACE: '/elsewhere/w.fairground' })).toBe(process.platform === 'linux' ? '/data/fairground/logs' : defaultLogFolder({ XDG_DATA_HOME: '/data' }));
    expect(defaultLogFolder({ FAIRGROUND_LOG_DIR: '/var/log/fg' })).toBe('/var/log/fg');
  });
});
