/**
 * The layering, checked by `npm run lint` (depcruise). apps/ → libs/; inside libs/, the domain is pure rules and only the
 * store speaks SQL. Test code (test/, bench/, and testkit/, which they share) may import what it tests, pg and Kysely
 * included (it sets up and inspects databases), and library internals (unit tests of internal parts); the cycle rule
 * applies to it too.
 *
 * Type-only imports count (tsPreCompilationDeps): a layer that names another's types depends on it.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycles anywhere.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'libs/domain holds the rules: no Nest, no database driver or query builder.',
      severity: 'error',
      from: { path: '^libs/domain/' },
      to: { path: '^node_modules/(@nestjs/|pg/|pg-[^/]+/|kysely/)' },
    },
    {
      name: 'daml-lf-is-pure',
      comment:
        'libs/daml-lf (the Daml-LF language and engine) is pure: no Nest, no database, no file, network or process I/O, and ' +
        'no other Ledgerline library but the Canton formats; the domain and the store use it, never the reverse.',
      severity: 'error',
      from: { path: '^libs/daml-lf/' },
      to: {
        path: [
          '^node_modules/(@nestjs/|pg/|pg-[^/]+/|kysely/)',
          '^(node:)?(fs|net|http|https|child_process|worker_threads|dgram|cluster)$',
          '^libs/(domain|store|auth|wire)/',
        ],
      },
    },
    {
      name: 'lf-testing-outside-runtime',
      comment:
        'The LF-text parser and the archive encoders (@ledgerline/daml-lf/testing) are for tests and benchmarks: nothing ' +
        'the server or ledgerctl runs imports them.',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: '^libs/daml-lf/src/testing/' },
      to: { path: '^libs/daml-lf/src/testing/' },
    },
    {
      name: 'sql-only-in-store',
      comment: 'Only libs/store imports pg or Kysely (test/ and bench/ are test code and may).',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: '^libs/store/' },
      to: { path: '^node_modules/(pg/|pg-[^/]+/|kysely/)' },
    },
    {
      name: 'apps-use-library-entry',
      comment:
        'apps/ use a library through its public entry @ledgerline/<lib> (libs/<lib>/src/index.ts), not its files.',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^libs/[^/]+/src/', pathNot: '^libs/[^/]+/src/index\\.ts$' },
    },
    {
      name: 'apps-use-library-alias',
      comment: 'apps/ name a library by its alias @ledgerline/<lib>, never by a relative path into libs/.',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^libs/', dependencyTypesNot: ['aliased-tsconfig-paths'] },
    },
    {
      name: 'libs-use-library-entry',
      comment: 'A library uses another through its public entry, never its files.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/', pathNot: ['^libs/$1/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'libs-do-not-import-apps',
      comment: 'Libraries know nothing of the applications, the tests or the benchmarks.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^(apps|test|bench|testkit)/' },
    },
    {
      name: 'explorer-is-an-api-client',
      comment:
        'The explorer (apps/explorer) is a browser page that knows the ledger only through the public JSON API: it imports ' +
        'no library and no server module, and nothing but tests imports it.',
      severity: 'error',
      from: { path: '^apps/explorer/' },
      to: { path: '^(libs|apps/server|apps/ledgerctl)/' },
    },
    {
      name: 'nothing-imports-the-explorer',
      comment: 'The explorer is served as built files; only its tests import its modules.',
      severity: 'error',
      from: { path: '^(apps/server|apps/ledgerctl|libs|bench|testkit)/' },
      to: { path: '^apps/explorer/' },
    },
    {
      name: 'server-infrastructure-below-http',
      comment:
        "The server's infrastructure (runtime, CoreModule, identity, metrics) sits below its HTTP layer, its stream engine " +
        'and its capability modules: it imports none of them (they use it).',
      severity: 'error',
      from: { path: '^apps/server/src/infrastructure/' },
      to: { path: '^apps/server/src/(http|modules|streaming|grpc)/' },
    },
    {
      name: 'tests-and-benchmarks-apart',
      comment:
        'The tests and the benchmarks do not import each other: what both use (external signing, signing keys, replicated ' +
        'PostgreSQL, the browser, generated packages, throwaway databases) lives in testkit/. The unit tests of the ' +
        "benchmarks' own tools (test/unit/bench) import what they test.",
      severity: 'error',
      from: { path: '^test/', pathNot: '^test/unit/bench/' },
      to: { path: '^bench/' },
    },
    {
      name: 'benchmarks-do-not-import-tests',
      comment: 'A benchmark imports no test code: what it shares with the tests lives in testkit/.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'testkit-is-neutral',
      comment: 'testkit/ serves the tests and the benchmarks alike, so it imports neither.',
      severity: 'error',
      from: { path: '^testkit/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'http-below-capabilities',
      comment:
        "The server's HTTP layer (Fastify set-up, direct routes, error rendering) knows no capability and no stream.",
      severity: 'error',
      from: { path: '^apps/server/src/http/' },
      to: { path: '^apps/server/src/(modules|streaming|grpc)/' },
    },
    {
      name: 'grpc-is-a-transport',
      comment:
        "The gRPC layer (apps/server/src/grpc) is a transport beside HTTP: it dispatches the capabilities' commands and " +
        'queries and uses the stream engine; no capability and no stream knows it (only main.ts starts it).',
      severity: 'error',
      from: { path: '^apps/server/src/(modules|streaming)/' },
      to: { path: '^apps/server/src/grpc/' },
    },
    {
      name: 'streaming-below-capabilities',
      comment:
        'The stream engine (apps/server/src/streaming: offset streams, list collection, stream slots, ongoing authorization, ' +
        'WebSocket endpoints) serves every reading capability and knows none: it imports no capability module.',
      severity: 'error',
      from: { path: '^apps/server/src/streaming/' },
      to: { path: '^apps/server/src/modules/' },
    },
    {
      name: 'updates-is-a-capability',
      comment:
        'The updates module is one capability like the others: what several capabilities share lives in the stream engine ' +
        '(apps/server/src/streaming), so nothing in apps/ or bench/ but the app module imports the updates module.',
      severity: 'error',
      from: { path: '^(apps|bench)/', pathNot: '^apps/server/src/(modules/updates/|grpc/|app\\.module\\.ts$)' },
      to: { path: '^apps/server/src/modules/updates/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
