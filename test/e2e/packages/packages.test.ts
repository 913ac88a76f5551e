import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { encodeArchive, encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';
import { IFACE_SRC } from '../../support/versioned-packages';
import { archiveOf, buildDar, damlcManifest, dalfPath, lfArchive, zipOf, type TestArchive } from '../../support/dars';

/**
 * The package store over HTTP: uploads (/v2/packages and /v2/dars, raw bytes with or without a Content-Type), listing,
 * byte-identical download, status, duplicates and concurrency, validation, refusals (each with its code and nothing
 * stored), vetting, preferred packages, authorization.
 */
let ledger: TestLedger;
let sync1 = '';
let sync2 = '';

beforeAll(async () => {
  // Two synchronizers: uploads without a synchronizer id cannot pick one (PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER).
  ledger = await startTestLedger({
    LEDGER_SYNCHRONIZERS: 'global,secondary',
    LEDGER_MAX_BODY_BYTES: String(256 * 1024),
    LEDGER_DAR_MAX_UNCOMPRESSED_BYTES: String(512 * 1024),
  });
  [sync1, sync2] = ledger.runtime.identity.synchronizers.map((s) => s.id);
  await ledger.call('POST', '/v2/users', { user: { id: 'reader' } });
  await ledger.call('POST', '/v2/users', {
    user: { id: 'idp-admin' },
    rights: [{ kind: { IdentityProviderAdmin: { value: {} } } }],
  });
});
afterAll(async () => {
  await ledger?.close();
});

interface Answer {
  status: number;
  text: string;
  json: any;
  headers: Headers;
}

/** POSTs raw bytes, with no Content-Type unless one is given (as wallet-sdk sends them). */
async function post(
  path: string,
  body: Buffer,
  opts: { as?: string | null; contentType?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.as !== null) headers.authorization = `Bearer ${await ledger.token(opts.as ?? undefined)}`;
  if (opts.contentType) headers['content-type'] = opts.contentType;
  const res = await fetch(ledger.url + path, { method: 'POST', headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

const upload = (dar: Buffer, query = `synchronizerId=${encodeURIComponent(sync1)}`, path = '/v2/packages') =>
  post(`${path}?${query}`, dar);

async function download(id: string, as?: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(`${ledger.url}/v2/packages/${id}`, {
    headers: { authorization: `Bearer ${await ledger.token(as)}` },
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** A GET with a JSON body (fetch refuses to send one). */
async function getWithBody(path: string, body: string): Promise<{ status: number; text: string }> {
  const token = await ledger.token();
  return new Promise((resolve, reject) => {
    const req = http.request(
      ledger.url + path,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const listed = async (as?: string): Promise<string[]> =>
  (await ledger.call('GET', '/v2/packages', undefined, { as })).json.packageIds;

/** What a refused request must leave unchanged: packages, archives, vetting, the event log. */
async function storeState() {
  const db = ledger.runtime.db;
  const count = async (table: 'packages' | 'package_archives' | 'package_vetting' | 'event_log') =>
    Number((await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    packages: await count('packages'),
    archives: await count('package_archives'),
    vetting: await count('package_vetting'),
    events: await count('event_log'),
  };
}

/** Uploads `dar` and expects this refusal, the store left as it was. */
async function expectRefused(dar: Buffer, status: number, code: string, query?: string): Promise<Answer> {
  const before = await storeState();
  const r = await upload(dar, query);
  expectCantonError(r, status, code);
  expect(await storeState()).toEqual(before);
  return r;
}

const byVersion = (name: string, version: string, extra: Partial<Parameters<typeof lfArchive>[0]> = {}) =>
  lfArchive({ name, version, ...extra });

describe('uploading and reading', () => {
  let dep: TestArchive;
  let main: TestArchive;

  it('stores every archive of a DAR once, as REGISTERED, and serves the payload byte for byte', async () => {
    dep = byVersion('upload-dep', '1.0.0');
    const other = byVersion('upload-other', '0.0.1', { minor: '3' });
    main = byVersion('upload-main', '2.0.0', { minor: '2', imports: [dep.packageId, other.packageId] });
    const dar = await buildDar({ main, deps: [dep, other] });
    const r = await upload(dar);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({});
    const ids = await listed();
    for (const a of [main, dep, other]) {
      expect(ids.filter((id) => id === a.packageId)).toHaveLength(1);
      const status = await ledger.call('GET', `/v2/packages/${a.packageId}/status`);
      expect(status.json).toEqual({ packageStatus: 'PACKAGE_STATUS_REGISTERED' });
      const d = await download(a.packageId);
      expect(d.status).toBe(200);
      expect(d.headers.get('content-type')).toBe('application/octet-stream');
      expect(d.headers.get('canton-package-hash')).toBe(a.packageId);
      expect(d.body.equals(a.payload)).toBe(true);
      expect(createHash('sha256').update(d.body).digest('hex')).toBe(a.packageId);
    }
    const row = await ledger.runtime.db
      .selectFrom('packages')
      .selectAll()
      .where('package_id', '=', main.packageId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      package_name: 'upload-main',
      package_version: '2.0.0',
      lf_version: '2.2',
      imports: [dep.packageId, other.packageId],
    });
    expect(row.uploaded_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('answers an upload with application/octet-stream, and /v2/dars, the same way', async () => {
    const a = byVersion('ctype', '1.0.0');
    const r = await post(`/v2/dars?synchronizerId=${encodeURIComponent(sync1)}`, await buildDar({ main: a }), {
      contentType: 'application/octet-stream',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({});
    expect(await listed()).toContain(a.packageId);
  });

  it('serves an archive larger than a storage chunk whole', async () => {
    const big = byVersion('big', '1.0.0', { salt: 'x'.repeat(300 * 1024) });
    const dar = await buildDar({ main: big });
    expect(dar.length).toBeLessThan(256 * 1024); // deflated under the body limit
    expect((await upload(dar)).status).toBe(200);
    const d = await download(big.packageId);
    expect(d.body.equals(big.payload)).toBe(true);
    expect(Number(d.headers.get('content-length'))).toBe(big.payload.length);
  });

  it('lets any authenticated user read; unknown and malformed ids', async () => {
    expect(await listed('reader')).toContain(main.packageId);
    expect((await download(main.packageId, 'reader')).body.equals(main.payload)).toBe(true);
    const unknown = 'f'.repeat(64);
    const d = await ledger.call('GET', `/v2/packages/${unknown}`);
    expect(d.status).toBe(404);
    expect(d.json).toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      cause: 'Could not find package.',
      resources: [['PACKAGE', unknown]],
    });
    expect((await ledger.call('GET', `/v2/packages/${unknown}/status`)).json).toEqual({
      packageStatus: 'PACKAGE_STATUS_UNSPECIFIED',
    });
    for (const bad of ['a'.repeat(65), 'bad!id']) {
      for (const path of [`/v2/packages/${bad}`, `/v2/packages/${bad}/status`]) {
        const r = await ledger.call('GET', path);
        expect(r.status, path).toBe(400);
        expect(r.json.code).toBe('INVALID_ARGUMENT');
        expect(r.json.cause).toContain('Invalid package id');
      }
    }
    expect((await ledger.call('GET', '/v2/packages', undefined, { as: null })).status).toBe(401);
  });

  it('is idempotent: the same DAR twice, a DAR sharing a dependency, eight concurrent uploads with reads', async () => {
    const shared = byVersion('shared-dep', '1.0.0');
    const first = byVersion('concurrent', '1.0.0');
    const dar = await buildDar({ main: first, deps: [shared] });
    const before = await storeState();
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => upload(dar)),
      ...Array.from({ length: 8 }, () => ledger.call('GET', '/v2/packages')),
    ]);
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const after = await storeState();
    expect(after.packages).toBe(before.packages + 2);
    expect(after.events).toBe(before.events + 2); // one PackagesUploaded, one vetting change
    expect((await upload(dar)).status).toBe(200);
    expect((await upload(dar, `synchronizerId=${encodeURIComponent(sync1)}`, '/v2/dars')).status).toBe(200);
    expect(await storeState()).toEqual(after);

    const second = byVersion('concurrent-second', '1.0.0');
    expect((await upload(await buildDar({ main: second, deps: [shared] }))).status).toBe(200);
    const ids = await listed();
    expect(ids.filter((id) => id === shared.packageId)).toHaveLength(1);
    expect(ids).toContain(second.packageId);
    expect((await download(shared.packageId)).body.equals(shared.payload)).toBe(true);
  });
});

describe('synchronizers and validation', () => {
  it('resolves the synchronizer before reading the DAR', async () => {
    const a = byVersion('sync-choice', '1.0.0');
    const dar = await buildDar({ main: a });
    let r = await expectRefused(dar, 400, 'PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER', '');
    expect(r.json.cause).toBe(`Cannot autodetect synchronizer: currently connected synchronizers ${sync1}, ${sync2}`);
    r = await expectRefused(
      Buffer.from('not a zip'),
      400,
      'PACKAGE_SERVICE_NOT_CONNECTED_TO_SYNCHRONIZER',
      `synchronizerId=other::1220${'a'.repeat(64)}`,
    );
    expect(r.json.errorCategory).toBe(9);
    await expectRefused(dar, 400, 'PROTO_DESERIALIZATION_FAILURE', 'synchronizerId=no-namespace');
    const maybe = await upload(dar, 'vetAllPackages=maybe');
    expect(maybe.status).toBe(400);
    expect(maybe.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(maybe.text).toMatch(/^Invalid value for: query parameter vetAllPackages/);
  });

  it('vetAllPackages=false stores without vetting and needs no synchronizer', async () => {
    const a = byVersion('unvetted', '1.0.0');
    expect((await upload(await buildDar({ main: a }), 'vetAllPackages=false')).status).toBe(200);
    expect(await listed()).toContain(a.packageId);
    const list = await ledger.call('POST', '/v2/package-vetting/list', {
      packageMetadataFilter: { packageIds: [a.packageId] },
    });
    expect(list.json.vettedPackages).toEqual([]);
  });

  it('validate checks like an upload, always needs a synchronizer, and stores nothing', async () => {
    const a = byVersion('validated', '1.0.0');
    const dar = await buildDar({ main: a });
    const before = await storeState();
    const ok = await post(`/v2/dars/validate?synchronizerId=${encodeURIComponent(sync1)}`, dar);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toBe('');
    expect(await storeState()).toEqual(before);
    expect((await post('/v2/dars/validate', dar)).json.code).toBe('PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER');
    expect(
      (await post(`/v2/dars/validate?synchronizerId=${encodeURIComponent(sync1)}`, Buffer.alloc(0))).json.code,
    ).toBe('INVALID_DAR');
    expect(await storeState()).toEqual(before);
  });
});

describe('refusals: the reference code, nothing stored', () => {
  it('not a zip, an empty body, no manifest, manifest attributes and format → INVALID_DAR', async () => {
    await expectRefused(Buffer.from('definitely not a zip'), 400, 'INVALID_DAR');
    const empty = await expectRefused(Buffer.alloc(0), 400, 'INVALID_DAR');
    expect(empty.json).toMatchObject({ cause: 'Dar file is corrupt', errorCategory: 8 });
    expect(empty.json.context).toHaveProperty('throwable');
    const a = byVersion('manifest-cases', '1.0.0');
    await expectRefused(await zipOf({ 'a.dalf': a.dalf }), 400, 'INVALID_DAR');
    const root = 'manifest-cases-1.0.0';
    const path = dalfPath(a, root);
    for (const omit of ['Main-Dalf', 'Dalfs', 'Format']) {
      const r = await expectRefused(
        await buildDar({ main: a, manifest: damlcManifest(path, [path], { omit: [omit] }) }),
        400,
        'INVALID_DAR',
      );
      expect(r.json.context.throwable).toBe(`Cannot find attribute: ${omit}`);
    }
    const r = await expectRefused(
      await buildDar({ main: a, manifest: damlcManifest(path, [path], { format: 'zip' }) }),
      400,
      'INVALID_DAR',
    );
    expect(r.json.context.throwable).toBe('Unsupported format: zip');
  });

  it('reads a manifest whose Dalfs line is folded (JAR continuation lines)', async () => {
    const deps = Array.from({ length: 3 }, (_, i) => byVersion(`folded-dep-${i}`, '1.0.0'));
    const main = byVersion('folded-main', '1.0.0');
    expect((await upload(await buildDar({ main, deps }))).status).toBe(200);
    expect(await listed()).toEqual(expect.arrayContaining([main.packageId, ...deps.map((d) => d.packageId)]));
  });

  it('a dalf the manifest names but the zip lacks → INVALID_ZIP_ENTRY', async () => {
    const dep = byVersion('missing-entry-dep', '1.0.0');
    const main = byVersion('missing-entry', '1.0.0');
    const r = await expectRefused(
      await buildDar({ main, deps: [dep], omitDalfs: [dep.packageId] }),
      400,
      'INVALID_ZIP_ENTRY',
    );
    expect(r.json.cause).toBe('Dar zip file is corrupt');
    expect(r.json.context.name).toContain(dep.packageId);
  });

  it('corrupt, tampered and malformed archives → DAR_PARSE_ERROR with the reason', async () => {
    const a = byVersion('parse-cases', '1.0.0');
    const dar = (dalf: Buffer) => buildDar({ main: a, replaceDalf: { [a.packageId]: dalf } });
    await expectRefused(await dar(Buffer.from([0xff, 0xff, 0xff])), 400, 'DAR_PARSE_ERROR');
    const wrong = 'a'.repeat(64);
    const tampered = await expectRefused(await dar(archiveOf(a.payload, wrong)), 400, 'DAR_PARSE_ERROR');
    expect(tampered.json.cause).toBe('Failed to parse the dar file content.');
    expect(tampered.json.context.reason).toBe(`Mismatching hashes! Expected ${a.packageId} but got ${wrong}`);
    const upper = await expectRefused(
      await dar(archiveOf(a.payload, a.packageId.toUpperCase())),
      400,
      'DAR_PARSE_ERROR',
    );
    expect(upper.json.context.reason).toContain('Mismatching hashes!');
    await expectRefused(await dar(archiveOf(a.payload, 'not a hash!')), 400, 'DAR_PARSE_ERROR');
    await expectRefused(await dar(archiveOf(a.payload, undefined, true)), 400, 'DAR_PARSE_ERROR'); // unknown Archive field
    for (const spec of [
      { name: 'no-meta', version: '1.0.0', noMetadata: true },
      { name: 'bad name!', version: '1.0.0' },
      { name: 'bad-version', version: '01.0' },
      { name: 'unknown-field', version: '1.0.0', unknownPackageField: true },
      { name: 'unknown-minor', version: '1.0.0', minor: '99' },
      { name: 'lf2-patch', version: '1.0.0', patch: 1 },
    ]) {
      const bad = lfArchive(spec);
      await expectRefused(await buildDar({ main: bad }), 400, 'DAR_PARSE_ERROR');
    }
    // A payload with neither LF 1 nor LF 2 package.
    await expectRefused(await dar(archiveOf(Buffer.from([0x1a, 0x01, 0x31]))), 400, 'DAR_PARSE_ERROR');
  });

  it('LF versions outside 2.1–2.3 → ALLOWED_LANGUAGE_VERSIONS, also in a dependency', async () => {
    for (const spec of [
      { name: 'lf-dev', version: '1.0.0', minor: 'dev' },
      { name: 'lf-1-15', version: '1.0.0', major: 1 as const, minor: '15' },
      { name: 'lf-1-17', version: '1.0.0', major: 1 as const, minor: '17' },
    ]) {
      const r = await expectRefused(await buildDar({ main: lfArchive(spec) }), 400, 'ALLOWED_LANGUAGE_VERSIONS');
      expect(r.json.cause).toMatch(
        /^Disallowed language version in package [0-9a-f]{64}: Expected version between 2\.1 and 2\.3 but got /,
      );
    }
    const main = byVersion('accepted-main', '1.0.0');
    await expectRefused(
      await buildDar({ main, deps: [lfArchive({ name: 'dev-dep', version: '1.0.0', minor: 'dev' })] }),
      400,
      'ALLOWED_LANGUAGE_VERSIONS',
    );
    expect(await listed()).not.toContain(main.packageId);
  });

  it('a declared import that is neither in the DAR nor stored → DAR_DEPENDENCIES_NOT_VALID', async () => {
    const absent = 'e'.repeat(64);
    const main = byVersion('missing-dep', '1.0.0', { minor: '2', imports: [absent] });
    const r = await expectRefused(await buildDar({ main }), 400, 'DAR_DEPENDENCIES_NOT_VALID');
    expect(r.json.context).toMatchObject({ mainPackageId: main.packageId, missingDependencies: absent });
    // Stored before: accepted.
    const dep = byVersion('stored-dep', '1.0.0');
    expect((await upload(await buildDar({ main: dep }))).status).toBe(200);
    const user = byVersion('uses-stored-dep', '1.0.0', { minor: '3', imports: [dep.packageId] });
    expect((await upload(await buildDar({ main: user }))).status).toBe(200);
  });

  it("a package Canton's validation refuses → DAR_VALIDATION_ERROR with its message, on upload and validate", async () => {
    const bad = parsePackage(`metadata ( 'invalid-serializable' : '1.0.0' )
module M { record @serializable R = { f: Int64 -> Int64 } ; }`);
    const { dar, main } = await encodeDar(bad);
    const r = await expectRefused(dar, 400, 'DAR_VALIDATION_ERROR');
    expect(r.json.cause).toBe('Package validation failed.');
    expect(r.json.context.validationError).toBe(
      `validation error in data type ${main.packageId}:M:R: expected serializable type:\n * reason: function type\n * found: M:R\n * problem: serializable data type\n     `,
    );
    const v = await post(`/v2/dars/validate?synchronizerId=${encodeURIComponent(sync1)}`, dar);
    expectCantonError(v, 400, 'DAR_VALIDATION_ERROR');
    expect(await listed()).not.toContain(main.packageId);
  });

  it('a DAR is validated against the stored packages it uses and does not hold', async () => {
    const iface = parsePackage(IFACE_SRC.replace("'pref-iface'", "'validated-iface'"));
    const ifaceId = encodeArchive(iface).packageId;
    expect((await upload((await encodeDar(iface)).dar)).status).toBe(200);
    const user = (field: string) =>
      parsePackage(`metadata ( 'validated-user' : '1.0.0' )
module M { record @serializable R = { v: '${ifaceId}':Iface:${field} } ; }`);
    const ok = await encodeDar(user('View'));
    expect((await upload(ok.dar)).status, 'a reference to a stored type').toBe(200);
    const r = await expectRefused((await encodeDar(user('Nope'))).dar, 400, 'DAR_VALIDATION_ERROR');
    expect(r.json.context.validationError).toMatch(new RegExp(`: unknown data type ${ifaceId}:Iface:Nope$`));
  });

  it('vetting a version that is no valid upgrade → NOT_VALID_UPGRADE_PACKAGE; the same version twice → KNOWN_PACKAGE_VERSION', async () => {
    const memo = (version: string, fields: string) =>
      parsePackage(`metadata ( 'upgraded-memo' : '${version}' )
module M {
  record @serializable Memo = { owner: Party${fields} } ;
  template (this : Memo) = {
    precondition True;
    signatories Cons @Party [M:Memo {owner} this] (Nil @Party);
    observers Nil @Party;
  } ;
}`);
    const v1 = await encodeDar(memo('1.0.0', ''));
    expect((await upload(v1.dar)).status).toBe(200);
    const bad = await encodeDar(memo('2.0.0', ', text: Text'));
    const r = await expectRefused(bad.dar, 400, 'NOT_VALID_UPGRADE_PACKAGE');
    expect(r.json.cause).toBe(
      `Upgrade checks indicate that ${bad.main.packageId} (upgraded-memo v2.0.0) cannot be an upgrade of ${v1.main.packageId} (upgraded-memo v1.0.0). Reason: The upgraded template Memo has added new fields, but those fields are not Optional.`,
    );
    const validate = await post(`/v2/dars/validate?synchronizerId=${encodeURIComponent(sync1)}`, bad.dar);
    expectCantonError(validate, 400, 'NOT_VALID_UPGRADE_PACKAGE');
    const again = await encodeDar(memo('1.0.0', ', note: Option Text'));
    const known = await expectRefused(again.dar, 400, 'KNOWN_PACKAGE_VERSION');
    expect(known.json.cause).toContain('Tried to vet two packages with the same name and version: ');
    expect(known.json.cause).toContain(`${v1.main.packageId} (upgraded-memo v1.0.0)`);
    // Stored without vetting: Canton checks upgrades when packages are vetted.
    expect((await upload(bad.dar, `synchronizerId=${encodeURIComponent(sync1)}&vetAllPackages=false`)).status).toBe(
      200,
    );
    const good = await encodeDar(memo('2.0.1', ', text: Option Text'));
    expect((await upload(good.dar)).status, 'a trailing Optional field').toBe(200);
  });

  it('a body over the limit → 413; unpacking over the limit → ZIP_BOMB', async () => {
    const before = await storeState();
    const r = await upload(Buffer.alloc(300 * 1024, 1));
    expect(r.status).toBe(413);
    expect(r.json.code).toBe('REQUEST_TOO_LARGE');
    // Chunked, with no declared length: refused while it is read.
    const chunks = Array.from({ length: 10 }, () => new Uint8Array(32 * 1024));
    const streamed = await fetch(`${ledger.url}/v2/dars?synchronizerId=${encodeURIComponent(sync1)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token()}` },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { code: string }).code).toBe('REQUEST_TOO_LARGE');
    const bomb = byVersion('bomb', '1.0.0', { salt: '0'.repeat(600 * 1024) });
    await expectRefused(await buildDar({ main: bomb }), 400, 'ZIP_BOMB');
    expect(await storeState()).toEqual(before);
  });

  it('uploads need ParticipantAdmin: 401 without a token, 403 for an identity provider admin or a plain user', async () => {
    const dar = await buildDar({ main: byVersion('rights', '1.0.0') });
    const before = await storeState();
    const q = `?synchronizerId=${encodeURIComponent(sync1)}`;
    for (const path of ['/v2/packages', '/v2/dars', '/v2/dars/validate']) {
      expect((await post(path + q, dar, { as: null })).status).toBe(401);
      for (const as of ['idp-admin', 'reader']) {
        const r = await post(path + q, dar, { as });
        expect(r.status, `${as} ${path}`).toBe(403);
        expect(r.json.code).toBe('NA');
      }
    }
    expect(await storeState()).toEqual(before);
  });
});

describe('vetting and preferred packages', () => {
  const versions = ['1.2.0', '1.10.0', '1.9.0'];
  let byVer: Record<string, TestArchive>;
  const party = `alice::1220${'b'.repeat(64)}`;

  const preferred = (query: string) =>
    ledger.call('GET', `/v2/interactive-submission/preferred-package-version?${query}`);

  it('prefers the highest vetted version, on both endpoints, with and without a synchronizer', async () => {
    byVer = Object.fromEntries(versions.map((v) => [v, byVersion('versioned', v)]));
    for (const v of versions) expect((await upload(await buildDar({ main: byVer[v] }))).status).toBe(200);
    const best = byVer['1.10.0'];
    const expected = { packageId: best.packageId, packageName: 'versioned', packageVersion: '1.10.0' };
    const get = await preferred(`package-name=versioned&parties=${encodeURIComponent(party)}`);
    expect(get.json).toEqual({ packagePreference: { packageReference: expected, synchronizerId: sync1 } });
    const withSync = await preferred(
      `package-name=versioned&parties=${encodeURIComponent(party)}&synchronizer-id=${encodeURIComponent(sync1)}`,
    );
    expect(withSync.json.packagePreference.packageReference).toEqual(expected);
    const post2 = await ledger.call('POST', '/v2/interactive-submission/preferred-packages', {
      packageVettingRequirements: [{ parties: [party], packageName: 'versioned' }],
    });
    expect(post2.json).toEqual({ packageReferences: [expected], synchronizerId: sync1 });
    // Nothing is vetted on the second synchronizer.
    expect(
      (
        await preferred(
          `package-name=versioned&parties=${encodeURIComponent(party)}&synchronizer-id=${encodeURIComponent(sync2)}`,
        )
      ).json,
    ).toEqual({});
    const none = await ledger.call('POST', '/v2/interactive-submission/preferred-packages', {
      packageVettingRequirements: [{ parties: [party], packageName: 'versioned' }],
      synchronizerId: sync2,
    });
    expect(none.status).toBe(400);
    expect(none.json.code).toBe('NO_PREFERRED_PACKAGES_FOUND');
  });

  it('lists, unvets, vets with bounds, and the preference follows', async () => {
    const best = byVer['1.10.0'];
    const list = await ledger.call('POST', '/v2/package-vetting/list', {
      packageMetadataFilter: { packageNamePrefixes: ['versio'] },
    });
    expect(list.json.vettedPackages).toHaveLength(1);
    const entry = list.json.vettedPackages[0];
    expect(entry).toMatchObject({ participantId: ledger.participantId, synchronizerId: sync1 });
    expect(entry.packages.map((p: { packageVersion: string }) => p.packageVersion)).toEqual([
      '1.2.0',
      '1.9.0',
      '1.10.0',
    ]);
    const serial = entry.topologySerial;

    const unvet = await ledger.call('POST', '/v2/package-vetting/update', {
      changes: [{ operation: { Unvet: { value: { packages: [{ packageId: best.packageId }] } } } }],
      synchronizerId: sync1,
      expectedTopologySerial: { serial: { Prior: { value: serial } } },
    });
    expect(unvet.status, unvet.text).toBe(200);
    expect(unvet.json.pastVettedPackages.topologySerial).toBe(serial);
    expect(unvet.json.newVettedPackages.topologySerial).toBe(serial + 1);
    expect(unvet.json.newVettedPackages.packages.map((p: { packageId: string }) => p.packageId)).not.toContain(
      best.packageId,
    );
    expect(
      (await preferred(`package-name=versioned&parties=${encodeURIComponent(party)}`)).json.packagePreference
        .packageReference.packageVersion,
    ).toBe('1.9.0');

    // A stale serial is refused and changes nothing.
    const stale = await ledger.call('POST', '/v2/package-vetting/update', {
      changes: [{ operation: { Vet: { value: { packages: [{ packageId: best.packageId }] } } } }],
      synchronizerId: sync1,
      expectedTopologySerial: { serial: { Prior: { value: serial } } },
    });
    expect(stale.json.code).toBe('TOPOLOGY_SERIAL_MISMATCH');

    // Dry run: the answer, no change.
    const dry = await ledger.call('POST', '/v2/package-vetting/update', {
      changes: [
        { operation: { Vet: { value: { packages: [{ packageName: 'versioned', packageVersion: '1.10.0' }] } } } },
      ],
      synchronizerId: sync1,
      dryRun: true,
    });
    expect(dry.json.newVettedPackages.packages.map((p: { packageId: string }) => p.packageId)).toContain(
      best.packageId,
    );
    expect(
      (await preferred(`package-name=versioned&parties=${encodeURIComponent(party)}`)).json.packagePreference
        .packageReference.packageVersion,
    ).toBe('1.9.0');

    // Vet again, but only from the future: not vetted now, vetted then.
    const future = new Date(Date.now() + 3600_000).toISOString();
    const vet = await ledger.call('POST', '/v2/package-vetting', {
      changes: [
        {
          operation: {
            Vet: {
              value: {
                packages: [{ packageName: 'versioned', packageVersion: '1.10.0' }],
                newValidFromInclusive: future,
              },
            },
          },
        },
      ],
      synchronizerId: sync1,
    });
    expect(vet.status, vet.text).toBe(200);
    const vetted = vet.json.newVettedPackages.packages.find(
      (p: { packageId: string }) => p.packageId === best.packageId,
    );
    expect(vetted).toMatchObject({ validFromInclusive: future, packageName: 'versioned', packageVersion: '1.10.0' });
    expect(
      (await preferred(`package-name=versioned&parties=${encodeURIComponent(party)}`)).json.packagePreference
        .packageReference.packageVersion,
    ).toBe('1.9.0');
    const later = new Date(Date.now() + 7200_000).toISOString();
    const atLater = await preferred(
      `package-name=versioned&parties=${encodeURIComponent(party)}&vetting_valid_at=${later}`,
    );
    expect(atLater.json.packagePreference.packageReference.packageVersion).toBe('1.10.0');
  });

  it('refuses bad vetting changes', async () => {
    const update = (changes: unknown, extra: Record<string, unknown> = {}) =>
      ledger.call('POST', '/v2/package-vetting/update', { changes, synchronizerId: sync1, ...extra });
    const ambiguous = await update([{ operation: { Vet: { value: { packages: [{ packageName: 'versioned' }] } } } }]);
    expect(ambiguous.json.code).toBe('AMBIGUOUS_VETTING_REFERENCE');
    const unresolved = await update([{ operation: { Vet: { value: { packages: [{ packageId: 'c'.repeat(64) }] } } } }]);
    expect(unresolved.status).toBe(404);
    expect(unresolved.json.code).toBe('UNRESOLVED_VETTING_REFERENCE');
    for (const ref of [
      { packageId: byVer['1.2.0'].packageId, packageName: 'versioned' },
      { packageVersion: '1.2.0' },
      {},
    ]) {
      const r = await update([{ operation: { Unvet: { value: { packages: [ref] } } } }]);
      expect(r.json.code, JSON.stringify(ref)).toBe('PROTO_DESERIALIZATION_FAILURE');
    }
    expect((await update([{ operation: {} }])).json.code).toBe('PROTO_DESERIALIZATION_FAILURE');
    expect((await update([])).json.code).toBe('PROTO_DESERIALIZATION_FAILURE');
    expect(
      (
        await update([
          {
            operation: {
              Vet: {
                value: {
                  packages: [{ packageName: 'versioned', packageVersion: '1.2.0' }],
                  newValidFromInclusive: 'yesterday',
                },
              },
            },
          },
        ])
      ).json.code,
    ).toBe('PROTO_DESERIALIZATION_FAILURE');
    const noSync = await ledger.call('POST', '/v2/package-vetting/update', {
      changes: [{ operation: { Unvet: { value: { packages: [{ packageName: 'versioned' }] } } } }],
    });
    expect(noSync.json.code).toBe('PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER');
    const reader = await ledger.call(
      'POST',
      '/v2/package-vetting/update',
      {
        changes: [{ operation: { Unvet: { value: { packages: [{ packageName: 'versioned' }] } } } }],
        synchronizerId: sync1,
      },
      { as: 'reader' },
    );
    expect(reader.status).toBe(403);
    expect((await ledger.call('POST', '/v2/package-vetting/list', {}, { as: 'reader' })).status).toBe(200);
    const badPage = await ledger.call('POST', '/v2/package-vetting/list', { pageToken: '!!' });
    expect(badPage.json.code).toBe('PROTO_DESERIALIZATION_FAILURE');
    expect((await ledger.call('POST', '/v2/package-vetting/list', { pageSize: -1 })).json.code).toBe(
      'PROTO_DESERIALIZATION_FAILURE',
    );
  });

  it('pages the vetting list by synchronizer; the deprecated GET takes its request as a body', async () => {
    await upload(await buildDar({ main: byVer['1.2.0'] }), `synchronizerId=${encodeURIComponent(sync2)}`);
    const first = await ledger.call('POST', '/v2/package-vetting/list', { pageSize: 1 });
    expect(first.json.vettedPackages.map((e: { synchronizerId: string }) => e.synchronizerId)).toEqual([
      [sync1, sync2].sort()[0],
    ]);
    const second = await ledger.call('POST', '/v2/package-vetting/list', {
      pageSize: 1,
      pageToken: first.json.nextPageToken,
    });
    expect(second.json.vettedPackages.map((e: { synchronizerId: string }) => e.synchronizerId)).toEqual([
      [sync1, sync2].sort()[1],
    ]);
    expect(second.json.nextPageToken).toBe('');
    const filtered = await getWithBody(
      '/v2/package-vetting',
      JSON.stringify({ topologyStateFilter: { synchronizerIds: [sync2] } }),
    );
    expect(filtered.status, filtered.text).toBe(200);
    expect(JSON.parse(filtered.text).vettedPackages.map((e: { synchronizerId: string }) => e.synchronizerId)).toEqual([
      sync2,
    ]);
    const malformed = await getWithBody('/v2/package-vetting', '{"pageSize": "x"}');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/^Invalid value for: body/);
  });

  it('preferred-package errors', async () => {
    const missingName = await preferred(`parties=${encodeURIComponent(party)}`);
    expect(missingName.status).toBe(400);
    expect(missingName.text).toMatch(/^Invalid value for: query parameter package-name/);
    const noParties = await preferred('package-name=versioned');
    expect(noParties.json).toMatchObject({ code: 'MISSING_FIELD' });
    const unknown = await preferred(`package-name=nobody-uploaded-this&parties=${encodeURIComponent(party)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('PACKAGE_NAMES_NOT_FOUND');
    expect(unknown.json.cause).toBe(
      'The following package names do not match upgradable packages uploaded on this participant: [nobody-uploaded-this].',
    );
    const post2 = (body: unknown) => ledger.call('POST', '/v2/interactive-submission/preferred-packages', body);
    expect((await post2({ packageVettingRequirements: [] })).json.code).toBe('MISSING_FIELD');
    expect((await post2({ packageVettingRequirements: [{ parties: [], packageName: 'versioned' }] })).json.code).toBe(
      'MISSING_FIELD',
    );
    expect(
      (await post2({ packageVettingRequirements: [{ parties: ['not a party!'], packageName: 'versioned' }] })).json
        .code,
    ).toBe('INVALID_ARGUMENT');
    expect(
      (
        await post2({
          packageVettingRequirements: [{ parties: [party], packageName: 'versioned' }],
          synchronizerId: 'x',
        })
      ).json.code,
    ).toBe('INVALID_FIELD');
    expect(
      (
        await post2({
          packageVettingRequirements: [{ parties: [party], packageName: 'versioned' }],
          vettingValidAt: 'soon',
        })
      ).json.code,
    ).toBe('INVALID_FIELD');
    expect((await preferred(`package-name=versioned&parties=${encodeURIComponent(party)}`)).status).toBe(200);
    expect(
      (
        await ledger.call(
          'GET',
          `/v2/interactive-submission/preferred-package-version?package-name=versioned&parties=${encodeURIComponent(party)}`,
          undefined,
          { as: 'reader' },
        )
      ).status,
    ).toBe(200);
  });
});
