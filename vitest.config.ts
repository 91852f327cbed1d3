import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The renderer's alias for pure core (src-renderer/vite.config.ts), for tests that import renderer modules.
  resolve: { alias: { $core: fileURLToPath(new URL('./src-main/core', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summaryReporter.ts'],
    // The app's own settings (recent workspaces) go to a scratch folder, never the user's.
    env: { FAIRGROUND_CONFIG_DIR: join(tmpdir(), `fairground-test-config-${process.pid}`) },
    // …and each test file its own folder below it (test/support/perFileConfig.ts).
    setupFiles: ['./test/support/perFileConfig.ts'],
  },
});
