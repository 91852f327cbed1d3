/** Running the CLI as an unprivileged user from tests that run as root. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Tests of read-only workspaces run the CLI as nobody (uid 65534) when they run as root, since root
 * ignores file permissions. That needs a checkout nobody can read: not one under a 0700 folder such
 * as `mktemp -d` makes. True when not root, or when nobody can read this checkout's launcher.
 */
export function unprivilegedCanRunCli(): boolean {
  if (process.getuid?.() !== 0) return true;
  const launcher = join(process.cwd(), 'bin', 'fairground.js');
  const probe = spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(launcher)}, require('node:fs').constants.R_OK)`], {
    uid: 65534,
    gid: 65534,
    timeout: 30_000,
  });
  return probe.status === 0;
}
