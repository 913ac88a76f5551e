import { createHash } from 'node:crypto';
import { BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { describe, expect, it } from 'vitest';
import { ArchiveParseError, readDar } from '@ledgerline/canton';
import {
  LfDecodeError,
  MAX_NESTING,
  PackageCache,
  decodeArchive,
  decodeArchivePayload,
  decodeDar,
  decodePackage,
  type Expr,
  type Package,
} from '@ledgerline/daml-lf';
import {
  LfEncodeError,
  encodeArchive,
  encodeArchivePayload,
  encodeDar,
  encodePackage,
} from '@ledgerline/daml-lf/testing';
import { OTHER, SELF, samplePackage } from './sample-packages';

/** The archive decoder on the encoder's output: every construct survives decode(encode(p)), and bad archives are refused clearly. */
describe('daml-lf archive: encode then decode', () => {
  for (const minor of ['1', '2', '3', 'dev'] as const) {
    it(`LF 2.${minor}: decode(encode(p)) == p for a package holding every construct`, () => {
      const pkg = samplePackage(minor);
      const payload = encodeArchivePayload(pkg);
      const back = decodeArchivePayload(payload, SELF);
      expect(back).toEqual(pkg);
      // and once more: the encoder is deterministic
      expect(Buffer.from(encodeArchivePayload(back)).equals(Buffer.from(payload))).toBe(true);
    });
  }

  it('gives the archive the SHA-256 of its payload as package id, and self references become that id', () => {
    const pkg = samplePackage('2');
    const a = encodeArchive(pkg);
    expect(a.packageId).toBe(createHash('sha256').update(a.payload).digest('hex'));
    const decoded = decodeArchive(a.dalf);
    expect(decoded.archive.lfVersion).toBe('2.2');
    expect(decoded.package.id).toBe(a.packageId);
    const v = decoded.package.modules.get('Other.Sub')!.values.get('Dotted.value')!;
    expect(v.expr).toEqual({ tag: 'val', ref: { packageId: a.packageId, module: 'Main', name: 'v0' } });
    expect(decoded.package.imports).toEqual([OTHER]);
  });

  it('LF 2.1 collects imports; LF 2.2+ keeps a declared list or a reason', () => {
    const p21 = decodeArchivePayload(encodeArchivePayload(samplePackage('1')), SELF);
    expect(p21.imports).toEqual([OTHER]);
    const withReason: Package = { ...samplePackage('2'), imports: [], noImportedPackagesReason: 'built by a test' };
    const back = decodeArchivePayload(encodeArchivePayload(withReason), SELF);
    expect(back.noImportedPackagesReason).toBe('built by a test');
    expect(back.imports).toEqual([OTHER]);
  });

  it('writes a DAR that readDar reads and decodeDar decodes, dependencies included', async () => {
    const dep = samplePackage('1');
    const main = samplePackage('2');
    const { dar, main: m, dependencies } = await encodeDar(main, [dep]);
    const read = await readDar(dar, { maxUncompressedBytes: 1 << 24 });
    expect(read.manifest.mainDalf).toBe(`sample-1.2.3-${m.packageId}/sample-1.2.3-${m.packageId}.dalf`);
    expect(read.dependencies.map((d) => d.name)).toEqual([
      `sample-1.2.3-${m.packageId}/sample-1.2.3-${dependencies[0].packageId}.dalf`,
    ]);
    const decoded = await decodeDar(dar);
    expect(decoded.main.package.id).toBe(m.packageId);
    expect(decoded.dependencies[0].package.id).toBe(dependencies[0].packageId);
    // a dalf given as bytes is kept byte for byte
    const again = await encodeDar({ dalf: m.dalf }, [{ dalf: dependencies[0].dalf }]);
    expect(again.main.packageId).toBe(m.packageId);
    expect(Buffer.from(again.dependencies[0].dalf).equals(Buffer.from(dependencies[0].dalf))).toBe(true);
  });

  it('refuses to write forms the LF version does not have', () => {
    const p = samplePackage('1');
    const bad: Package = { ...p, languageVersion: { major: 2, minor: '2' } };
    expect(() => encodePackage(bad)).toThrow(LfEncodeError);
    expect(() => encodePackage(bad)).toThrow(
      /type arguments on a (builtin|con|var) type are not allowed in Daml-LF 2.2/,
    );
    const flat = samplePackage('2');
    expect(() => encodePackage({ ...flat, languageVersion: { major: 2, minor: '1' } })).toThrow(
      /tapp is not allowed in Daml-LF 2.1/,
    );
    expect(() => encodePackage({ ...flat, languageVersion: { major: 2, minor: '9' } })).toThrow(
      /cannot encode Daml-LF 2.9/,
    );
  });
});

describe('daml-lf archive: the package cache', () => {
  it('decodes a package once per id and warms from a DAR', async () => {
    const { dar, main, dependencies } = await encodeDar(samplePackage('2'), [samplePackage('1')]);
    const cache = new PackageCache();
    expect(await cache.warmFromDar(dar)).toEqual([main.packageId, dependencies[0].packageId]);
    expect(cache.size).toBe(2);
    const first = cache.get(main.packageId)!;
    expect(cache.addArchive(main.dalf)).toBe(first);
    expect(cache.getOrDecodePayload(main.packageId, main.payload)).toBe(first);
    cache.delete(main.packageId);
    expect(cache.getOrDecodePayload(main.packageId, main.payload)).not.toBe(first);
    expect(cache.getOrDecodePayload(main.packageId, main.payload)).toEqual(first);
  });
});

/** Hand-written `Package` messages for the error cases. */
function pkgBytes(
  build: (w: BinaryWriter, s: (str: string) => number) => void,
  strings: string[] = ['pkg', '1.0.0'],
): Uint8Array {
  const w = new BinaryWriter();
  const all = [...strings];
  const s = (str: string) => {
    if (!all.includes(str)) all.push(str);
    return all.indexOf(str);
  };
  build(w, s);
  for (const x of all) w.tag(2, WireType.LengthDelimited).string(x);
  w.tag(4, WireType.LengthDelimited).fork().tag(2, WireType.Varint).int32(1).join();
  return w.finish();
}

/** A module `M` with one value `v : <type ref 0> = <expr>` where expr is written by `expr`. */
function withValue(expr: (w: BinaryWriter) => void, opts: { types?: (w: BinaryWriter) => void } = {}) {
  return pkgBytes((w, s) => {
    // dotted names: 0 = M, 1 = v
    w.tag(3, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).fork().int32(s('M')).join().join();
    w.tag(3, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).fork().int32(s('v')).join().join();
    // type table: 0 = Int64
    if (opts.types) opts.types(w);
    else
      w.tag(5, WireType.LengthDelimited)
        .fork()
        .tag(3, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.Varint)
        .int32(2)
        .join()
        .join();
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(5, WireType.LengthDelimited).fork();
    w.tag(2, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.Varint)
      .int32(1)
      .tag(2, WireType.LengthDelimited)
      .fork()
      .tag(8, WireType.Varint)
      .int32(0)
      .join()
      .join();
    w.tag(3, WireType.LengthDelimited).fork();
    expr(w);
    w.join();
    w.join();
    w.join();
  });
}

describe('daml-lf archive: refusals', () => {
  const decode = (bytes: Uint8Array, minor = '1') => decodePackage(bytes, 'p'.repeat(64), minor);

  it('decodes a minimal hand-written package (the fixture itself is right)', () => {
    const p = decode(withValue((w) => w.tag(2, WireType.Varint).int32(0)));
    expect(p.modules.get('M')!.values.get('v')!.expr).toEqual({ tag: 'var', name: 'pkg' });
  });

  it('a dangling interned string index', () => {
    expect(() => decode(withValue((w) => w.tag(2, WireType.Varint).int32(999)))).toThrow(
      'invalid internedString table index 999',
    );
  });

  it('a dangling interned type index', () => {
    const bytes = withValue((w) =>
      w
        .tag(21, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .fork()
        .tag(8, WireType.Varint)
        .int32(7)
        .join()
        .join(),
    );
    expect(() => decode(bytes)).toThrow('invalid internedTypes table index 7');
  });

  it('a concrete type outside the interning table', () => {
    const bytes = withValue((w) =>
      w
        .tag(21, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .fork()
        .tag(3, WireType.LengthDelimited)
        .fork()
        .join()
        .join()
        .join(),
    );
    expect(() => decode(bytes)).toThrow('a type outside the interning table must be an interned type reference');
  });

  it('an interned type referring to itself or a later entry', () => {
    const bytes = withValue((w) => w.tag(2, WireType.Varint).int32(0), {
      types: (t) =>
        t
          .tag(5, WireType.LengthDelimited)
          .fork()
          .tag(9, WireType.LengthDelimited)
          .fork()
          .tag(1, WireType.LengthDelimited)
          .fork()
          .tag(8, WireType.Varint)
          .int32(0)
          .join()
          .tag(2, WireType.LengthDelimited)
          .fork()
          .tag(8, WireType.Varint)
          .int32(0)
          .join()
          .join()
          .join(),
    });
    expect(() => decode(bytes, '2')).toThrow('invalid internedTypes table index 0');
  });

  it('TApp in LF 2.1, interned expressions in LF 2.1', () => {
    const tapp = withValue((w) => w.tag(2, WireType.Varint).int32(0), {
      types: (t) => t.tag(5, WireType.LengthDelimited).fork().tag(9, WireType.LengthDelimited).fork().join().join(),
    });
    expect(() => decode(tapp, '1')).toThrow('Illegal case: TApp not supported in version 2.1');
    expect(() =>
      decode(
        withValue((w) => w.tag(44, WireType.Varint).int32(0)),
        '1',
      ),
    ).toThrow('INTERNED_EXPR is not supported in Daml-LF 2.1');
  });

  it('an expression without a case, an unknown builtin, an unknown LF minor', () => {
    expect(() => decode(withValue(() => undefined))).toThrow('Expr.SUM_NOT_SET');
    expect(() => decode(withValue((w) => w.tag(4, WireType.Varint).int32(4001)))).toThrow(
      'unknown builtin function 4001',
    );
    expect(() =>
      decode(
        withValue((w) => w.tag(2, WireType.Varint).int32(0)),
        '7',
      ),
    ).toThrow('Unknown LF minor version 2.7');
  });

  it('a truncated message', () => {
    const good = withValue((w) => w.tag(2, WireType.Varint).int32(0));
    const err = (() => {
      try {
        decode(good.subarray(0, good.length - 9));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LfDecodeError);
    expect(err).toBeInstanceOf(ArchiveParseError);
  });

  it('a package without metadata', () => {
    const w = new BinaryWriter();
    w.tag(2, WireType.LengthDelimited).string('x');
    expect(() => decode(w.finish())).toThrow('Package.metadata is required in Daml-LF 2.1');
  });

  it('nesting beyond the bound is refused, not a stack overflow; deep but allowed nesting decodes', () => {
    const nested = (depth: number) => {
      const innermost = new BinaryWriter();
      innermost.tag(2, WireType.Varint).int32(0);
      let bytes = innermost.finish();
      for (let i = 0; i < depth; i++) {
        // Some(Int64, <bytes>)
        const w = new BinaryWriter();
        w.tag(26, WireType.LengthDelimited)
          .fork()
          .tag(1, WireType.LengthDelimited)
          .fork()
          .tag(8, WireType.Varint)
          .int32(0)
          .join()
          .tag(2, WireType.LengthDelimited)
          .bytes(bytes)
          .join();
        bytes = w.finish();
      }
      return withValue((w) => w.raw(bytes));
    };
    const ok = decode(nested(MAX_NESTING - 10));
    let e: Expr = ok.modules.get('M')!.values.get('v')!.expr;
    let n = 0;
    while (e.tag === 'some') {
      e = e.value;
      n++;
    }
    expect(n).toBe(MAX_NESTING - 10);
    expect(() => decode(nested(MAX_NESTING + 5))).toThrow(`nesting deeper than ${MAX_NESTING} levels`);
    expect(() => decode(nested(3 * MAX_NESTING))).toThrow(LfDecodeError);
  });

  it('an archive whose hash does not match, and an LF 1 archive', () => {
    const a = encodeArchive(samplePackage('1'));
    const w = new BinaryWriter();
    w.tag(3, WireType.LengthDelimited).bytes(a.payload);
    w.tag(4, WireType.LengthDelimited).string('0'.repeat(64));
    expect(() => decodeArchive(w.finish())).toThrow(/Mismatching hashes/);
    const lf1 = new BinaryWriter();
    lf1.tag(2, WireType.LengthDelimited).bytes(new Uint8Array());
    lf1.tag(3, WireType.LengthDelimited).string('15');
    expect(() => decodeArchivePayload(lf1.finish(), 'x')).toThrow(
      'Daml-LF 1.15 is not supported: only LF 2 packages are decoded',
    );
  });
});

describe('daml-lf archive: damaged archives', () => {
  it('a damaged package decodes or is refused with an LfDecodeError, never another error or a hang', () => {
    for (const minor of ['1', '2'] as const) {
      const good = encodePackage(samplePackage(minor));
      let seed = 12345;
      const rnd = (n: number) => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed % n;
      };
      let refused = 0;
      for (let i = 0; i < 1500; i++) {
        const bytes = Uint8Array.from(good);
        for (let k = 0; k <= rnd(3); k++) bytes[rnd(bytes.length)] = rnd(256);
        const cut = rnd(10) === 0 ? bytes.subarray(0, rnd(bytes.length)) : bytes;
        try {
          decodePackage(cut, SELF, minor);
        } catch (e) {
          if (!(e instanceof LfDecodeError))
            throw new Error(`mutation ${i}: ${(e as Error).name}: ${(e as Error).message}`, { cause: e });
          refused++;
        }
      }
      expect(refused).toBeGreaterThan(100);
    }
  });
});
