import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:stress`: crash safety under SIGKILL, a full disk and a read-only workspace
 * (test/stress/). Heavier than `npm test`, so kept out of it: the files are named `*.stress.ts`,
 * which vitest.config.ts (it takes `*.test.ts` only) does not pick up. About 4 minutes on 2 cores.
 */
export default defineConfig({
  test: {
    include: ['test/stress/**/*.stress.ts'],
    pool: 'forks',
    // The tests spawn and kill CLI processes and time the kills: one file at a time.
    maxWorkers: 1,
    fileParallelism: false,
    // The app's own settings (recent workspaces) go to a scratch folder, never the user's.
    env: { FAIRGROUND_CONFIG_DIR: join(tmpdir(), `fairground-test-config-${process.pid}`) },
    // …and each test file its own folder below it (test/support/perFileConfig.ts).
    setupFiles: ['./test/support/perFileConfig.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
