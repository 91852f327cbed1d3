// The renderer's import aliases (src-renderer/vite.config.ts, src-renderer/tsconfig.json) for
// dependency-cruiser: .dependency-cruiser.cjs reads this file as its webpack resolve config.
import { fileURLToPath } from 'node:url';

export default {
  resolve: {
    alias: {
      $contract: fileURLToPath(new URL('./src-main/api/contract/index.ts', import.meta.url)),
      $core: fileURLToPath(new URL('./src-main/core', import.meta.url)),
    },
  },
};
