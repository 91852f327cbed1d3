// Structure guard (issue 37): `npm run check:deps` (also part of `npm run check:guards`, which .ci/run runs
// before the tests). dependency-cruiser resolves every import of src-main, src-renderer and test, type-only
// imports included (tsPreCompilationDeps), and fails on
//   - any import cycle (no-circular), type-only cycles too;
//   - an import up the layers, mirroring the layering rule of eslint.config.js, bottom to top:
//     core (pure) < store, engine, retrieval, io < api (contract: zod only) < experiments < services <
//     handlers < host (the service-host worker) < server, cli, app (transports);
//     only src-main/app imports electron; the renderer imports only the API contract, pure core and its own code;
//   - a source file of src-main that nothing imports and that is not an entry point (no-orphans);
//   - an import that does not resolve.
// ESLint checks the layering on the import text; this checks it on the resolved files, and adds cycles.
const below = (from, to, comment) => ({
  name: `layer-${from.replace(/[^a-z]+/g, '-')}`,
  comment,
  severity: 'error',
  from: { path: `^src-main/(${from})/` },
  to: { path: `^src-main/(${to})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles, type-only ones included: move the shared types into a small type-only module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      comment: 'core imports nothing of ours outside core.',
      severity: 'error',
      from: { path: '^src-main/core/' },
      to: { path: '^src-(main|renderer)/', pathNot: '^src-main/core/' },
    },
    {
      name: 'core-no-node',
      comment: 'core is pure: no Node built-ins (no I/O).',
      severity: 'error',
      from: { path: '^src-main/core/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-no-io-packages',
      comment: 'core is pure: no storage, engine, network or Electron package.',
      severity: 'error',
      from: { path: '^src-main/core/' },
      to: { path: '^node_modules/(better-sqlite3|sqlite-vec|node-llama-cpp|undici|ws|electron)/' },
    },
    below('store|engine|retrieval|io', 'api|experiments|services|handlers|host|server|cli|app', 'store, engine, retrieval and io sit below api, experiments, services, handlers, host and the transports.'),
    below('api', 'experiments|services|handlers|host|server|cli|app', 'api (contract and router) sits below experiments, services, handlers, host and the transports.'),
    {
      name: 'contract-zod-only',
      comment: 'The API contract (shared with the renderer) may import only zod and its own files.',
      severity: 'error',
      from: { path: '^src-main/api/contract/' },
      to: { pathNot: ['^src-main/api/contract/', '^node_modules/zod/'] },
    },
    below('experiments', 'services|handlers|host|server|cli|app', 'experiments sit below services, handlers, host and the transports.'),
    below('services', 'handlers|host|server|cli|app', 'services know no handler, no host and no transport.'),
    below('handlers', 'host|server|cli|app', 'handlers sit below the service host and the transports (server, cli, app).'),
    below('host', 'server|cli|app', 'the service host sits below the transports (server, cli, app).'),
    {
      name: 'electron-only-in-app',
      comment: 'Only src-main/app (and its tests) may import electron.',
      severity: 'error',
      from: { pathNot: ['^src-main/app/', '^test/app/', '^scripts/'] },
      to: { path: '^node_modules/electron/' },
    },
    {
      name: 'renderer-contract-core-own',
      comment: 'The renderer imports only the API contract ($contract), pure core ($core), its own code and UI packages.',
      severity: 'error',
      from: { path: '^src-renderer/src/' },
      to: { pathNot: ['^src-renderer/src/', '^src-main/api/contract/', '^src-main/core/', '^node_modules/'] },
    },
    {
      name: 'renderer-no-node',
      comment: 'The renderer runs in a browser: no Node built-ins, no native packages.',
      severity: 'error',
      from: { path: '^src-renderer/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-orphans',
      comment: 'A source file nothing imports: dead, or an entry point missing from this list.',
      severity: 'error',
      from: {
        orphan: true,
        path: '^src-main/',
        pathNot: ['\\.d\\.ts$', '^src-main/(app/(main|preload|utilityWorker)|cli/(main|evalIrMain)|host/hostEntry)\\.ts$'],
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    preserveSymlinks: true,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    webpackConfig: { fileName: '.dependency-cruiser.aliases.mjs' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.svelte', '.json', '.d.ts'],
    },
    exclude: { path: ['^dist/', '^release/', '^native/', '^\\.cache/', 'test/e2e/screenshots/'] },
    skipAnalysisNotInRules: true,
  },
};
