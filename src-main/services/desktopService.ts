/**
 * Services behind the desktop-experience methods (issue 17): the bundled demo specs and a
 * diagnostics report built from versions, the workspace, recent jobs and the log's last lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import type { DemoSpec } from '../api/contract/desktop';
import type { AppServices } from './appServices';
import type { RotatingLog } from './logging/rotatingLog';
import { resourcesDir } from './paths';
import { APP_VERSION } from './version';

export function demoSpecs(dir = join(resourcesDir(), 'demo', 'experiments')): z.infer<typeof DemoSpec>[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const spec = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      return { file, kind: String(spec.kind), name: String(spec.name), description: typeof spec.description === 'string' ? spec.description : '', spec };
    });
}

export function diagnostics(s: Pick<AppServices, 'workspace' | 'jobs' | 'transport' | 'settings'>, log: RotatingLog | null): { text: string; logFile: string | null; logFolder: string | null } {
  const lines: string[] = [];
  lines.push(`Fairground ${APP_VERSION} (${s.transport === 'electron' ? 'desktop' : 'browser mode'})`);
  lines.push(`node ${process.versions.node}${process.versions.electron ? `, electron ${process.versions.electron}` : ''}, ${platform()} ${release()} ${arch()}`);
  lines.push(`cpus ${cpus().length} (${cpus()[0]?.model ?? 'unknown'}), memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB`);
  lines.push(`workspace ${s.workspace.path}`);
  lines.push(`settings ${JSON.stringify(s.settings.get())}`);
  lines.push('', 'recent jobs:');
  for (const j of s.jobs.list(undefined, 10)) lines.push(`  ${j.createdAt} ${j.status} ${j.title}${j.error ? ` — ${j.error}` : ''}`);
  if (log) {
    lines.push('', `log ${log.file} (last lines):`);
    for (const l of log.tail(40)) lines.push(`  ${l}`);
  }
  return { text: lines.join('\n') + '\n', logFile: log?.file ?? null, logFolder: log?.folder ?? null };
}
