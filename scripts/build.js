#!/usr/bin/env node
// Compiles apps/, libs/, bench/ and testkit/ (what the benchmarks share with the tests) to dist/ with SWC: decorators
// and metadata for Nest, path aliases rewritten to relative requires. Type checking is separate (npm run typecheck).
// The explorer (apps/explorer, a browser page) is bundled instead, with esbuild, into dist/apps/explorer/.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'dist');
const explorer = path.join(root, 'apps/explorer');
const libs = ['domain', 'store', 'auth', 'wire', 'canton', 'daml-lf', 'testing', 'grpc'];
const paths = {};
for (const lib of libs) {
  paths[`@ledgerline/${lib}`] = [`libs/${lib}/src/index.ts`];
  paths[`@ledgerline/${lib}/*`] = [`libs/${lib}/src/*`];
}
// The server's modules, as bench/ imports them.
paths['@ledgerline/server/*'] = ['apps/server/src/*'];
const options = {
  sourceMaps: true,
  module: { type: 'commonjs', strictMode: true },
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
    baseUrl: root,
    paths,
  },
};

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (p !== explorer) yield* walk(p);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield p;
  }
}

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  const jobs = [];
  for (const top of ['apps', 'libs', 'bench', 'testkit']) {
    if (!fs.existsSync(path.join(root, top))) continue;
    for (const file of walk(path.join(root, top))) {
      const rel = path.relative(root, file);
      const target = path.join(out, rel.replace(/\.ts$/, '.js'));
      jobs.push(
        swc.transformFile(file, { ...options, filename: file, outputPath: target }).then((r) => {
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, r.code + `\n//# sourceMappingURL=${path.basename(target)}.map\n`);
          if (r.map) fs.writeFileSync(target + '.map', r.map);
        }),
      );
    }
  }
  jobs.push(bundleExplorer());
  await Promise.all(jobs);
}

/**
 * The explorer page: one ES module bundle (Preact included, nothing fetched at run time), its stylesheet and its HTML
 * shell, in dist/apps/explorer/ where the server serves them from (GET /explorer).
 */
async function bundleExplorer() {
  const target = path.join(out, 'apps/explorer');
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(explorer, 'src/main.tsx')],
    outfile: path.join(target, 'assets/explorer.js'),
    tsconfig: path.join(explorer, 'tsconfig.json'),
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(explorer, 'index.html'), path.join(target, 'index.html'));
  fs.copyFileSync(path.join(explorer, 'explorer.css'), path.join(target, 'assets/explorer.css'));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
