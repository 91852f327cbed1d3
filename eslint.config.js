// Lint, including the layering of docs/architecture.md, bottom to top:
//   core (pure) < store, engine, retrieval, io < api (contract: zod only; router: validation and
//   error mapping) < experiments < services < handlers (contract methods onto services) < server,
//   cli, app (transports). Nothing imports a layer above its own; only src-main/app imports electron;
//   the renderer imports only the API contract ($contract), pure core ($core: no I/O and nothing of
//   ours outside core, so it runs in a browser) and its own code.
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import svelteParser from 'svelte-eslint-parser';
import globals from 'globals';

const layer = (from, forbidden, message) => ({
  files: [`${from}/**/*.ts`],
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map((group) => ({ group: [group], message })) }],
  },
});

const ours = ['**/store/**', '**/engine/**', '**/retrieval/**', '**/io/**', '**/services/**', '**/experiments/**', '**/api/**', '**/handlers/**', '**/server/**', '**/cli/**', '**/app/**'];
const transports = ['**/server/**', '**/cli/**', '**/app/**', 'electron'];

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'native/**', 'test/e2e/screenshots/**', '.cache/**'] },
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only src-main/app may import electron.' }] }],
    },
  },
  // core: pure — nothing of ours outside core, no Node built-ins, no electron.
  {
    files: ['src-main/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'core is pure.' }],
          patterns: [
            { group: ours, message: 'core imports nothing of ours outside core.' },
            { group: ['node:*', 'fs', 'path', 'os', 'child_process', 'better-sqlite3', 'node-llama-cpp'], message: 'core is pure: no I/O.' },
          ],
        },
      ],
    },
  },
  // store, engine, retrieval, io: core at most (and each other only where the design says so).
  ...['src-main/store', 'src-main/retrieval', 'src-main/io', 'src-main/engine'].map((dir) =>
    layer(dir, ['**/api/**', '**/experiments/**', '**/services/**', '**/handlers/**', ...transports], `${dir} sits below api, experiments, services, handlers, server, cli and app.`),
  ),
  // api (the contract and the router): below everything that uses it.
  layer('src-main/api', ['**/experiments/**', '**/services/**', '**/handlers/**', ...transports], 'api (contract and router) sits below experiments, services, handlers and the transports.'),
  // experiments/services: no handlers, no transports, no electron.
  layer('src-main/experiments', ['**/services/**', '**/handlers/**', ...transports], 'experiments sit below services, handlers and the transports.'),
  layer('src-main/services', ['**/handlers/**', ...transports], 'services know no handler and no transport.'),
  // handlers map the contract onto services; the transports (server, app, cli) sit above them.
  layer('src-main/handlers', transports, 'handlers sit below the transports (server, cli, app).'),
  // the API contract is shared with the renderer: zod only.
  {
    files: ['src-main/api/contract/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod$|\\./).*', message: 'The API contract may import only zod and its own files.' }] }] },
  },
  // app: the only electron importer (and its tests, which inject stand-ins for Electron's objects).
  { files: ['src-main/app/**/*.ts', 'test/app/**/*.ts'], rules: { 'no-restricted-imports': 'off' } },
  // renderer: browser globals; imports only its own files, the contract ($contract), pure core ($core) and UI packages.
  {
    files: ['src-renderer/**/*.ts', 'src-renderer/**/*.svelte', 'src-renderer/**/*.svelte.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/src-main/**', '../../src-main/**', 'electron', 'node:*', 'better-sqlite3', 'node-llama-cpp'], message: 'The renderer imports only the API contract ($contract), pure core ($core) and its own code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/vite.config.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parser: svelteParser, parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
);
