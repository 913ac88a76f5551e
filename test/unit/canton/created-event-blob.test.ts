import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Create, Metadata_InputContract, Value, type Identifier } from '@canton-network/core-ledger-proto';
import { setCreateKey } from '@ledgerline/canton';
import { createdEventBlobOf, encodeInputContractV1, inputContractV1FastPathApplies } from '@ledgerline/canton';

const UNKNOWN = Symbol.for('protobuf-ts/unknown');

/** What the old `createdEventBlobOf` encoded: protobuf-ts `Metadata_InputContract.toBinary`. */
function reference(create: Create, createdAt: bigint): string {
  const bytes = Metadata_InputContract.toBinary({
    contract: { oneofKind: 'v1', v1: create },
    createdAt,
    eventBlob: new Uint8Array(0),
  });
  return Buffer.from(bytes).toString('hex');
}

/** Our encoder agrees with protobuf-ts: same bytes, or both throw. */
function expectSameAsProtobufTs(create: Create, createdAt: bigint): void {
  let expected: string;
  try {
    expected = reference(create, createdAt);
  } catch {
    expect(() => encodeInputContractV1(create, createdAt)).toThrow();
    return;
  }
  expect(encodeInputContractV1(create, createdAt).toString('hex')).toBe(expected);
}

// ---------------------------------------------------------------------------------------------------- arbitraries

const loneSurrogateArb = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const strArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 3 }),
        loneSurrogateArb,
        fc.constantFrom('\ud83c\udf89', 'ü', '✓', '\u0080', '\u07ff', '\u0800', '\uffff'),
      ),
      {
        maxLength: 5,
      },
    )
    .map((xs) => xs.join('')),
  fc.string({ minLength: 40, maxLength: 300 }), // ASCII: bulk copy path, two-byte length prefixes
  fc.string({ unit: 'binary', minLength: 40, maxLength: 120 }),
);

const identArb: fc.Arbitrary<Identifier> = fc.record({ packageId: strArb, moduleName: strArb, entityName: strArb });
const optIdentArb = fc.option(identArb, { nil: undefined });

const INT64_EDGES = [
  '0',
  '-0',
  '1',
  '-1',
  '007',
  '-007',
  '63',
  '64',
  '-64',
  '-65',
  '127',
  '128',
  String(2 ** 31 - 1),
  String(-(2 ** 31)),
  String(2 ** 32),
  String(-(2 ** 32)),
  String(2 ** 51 - 1),
  String(2 ** 51),
  String(-(2 ** 51)),
  String(-(2 ** 51) + 1),
  String(2 ** 52),
  String(-(2 ** 52)),
  String(Number.MAX_SAFE_INTEGER),
  String(-Number.MAX_SAFE_INTEGER),
  '9007199254740992',
  '-9007199254740992',
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '-9223372036854775807',
  '1700000000123456',
  '-62135596800000000',
  '253402300799999999',
];
const int64Arb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...INT64_EDGES),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const dateArb = fc.oneof(
  fc.constantFrom(0, -1, 1, -719162, 2932896, 2 ** 31 - 1, -(2 ** 31), 127, 128, -128),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
);

const v = (sum: Value['sum']): Value => ({ sum });

const valueArb: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(v({ oneofKind: undefined })),
    fc.constant(v({ oneofKind: 'unit', unit: {} })),
    fc.boolean().map((bool) => v({ oneofKind: 'bool', bool })),
    int64Arb.map((int64) => v({ oneofKind: 'int64', int64 })),
    dateArb.map((date) => v({ oneofKind: 'date', date })),
    int64Arb.map((timestamp) => v({ oneofKind: 'timestamp', timestamp })),
    strArb.map((numeric) => v({ oneofKind: 'numeric', numeric })),
    strArb.map((party) => v({ oneofKind: 'party', party })),
    strArb.map((text) => v({ oneofKind: 'text', text })),
    strArb.map((contractId) => v({ oneofKind: 'contractId', contractId })),
    fc
      .option(tie('value'), { nil: undefined })
      .map((value) => v({ oneofKind: 'optional', optional: value ? { value } : {} })),
    fc.array(tie('value'), { maxLength: 4 }).map((elements) => v({ oneofKind: 'list', list: { elements } })),
    fc
      .array(fc.record({ key: strArb, value: fc.option(tie('value'), { nil: undefined }) }), { maxLength: 3 })
      .map((entries) => v({ oneofKind: 'textMap', textMap: { entries } })),
    fc
      .array(
        fc.record({
          key: fc.option(tie('value'), { nil: undefined }),
          value: fc.option(tie('value'), { nil: undefined }),
        }),
        {
          maxLength: 3,
        },
      )
      .map((entries) => v({ oneofKind: 'genMap', genMap: { entries } })),
    fc
      .record({
        recordId: optIdentArb,
        fields: fc.array(fc.record({ label: strArb, value: fc.option(tie('value'), { nil: undefined }) }), {
          maxLength: 5,
        }),
      })
      .map((record) => v({ oneofKind: 'record', record })),
    fc
      .record({ variantId: optIdentArb, constructor: strArb, value: fc.option(tie('value'), { nil: undefined }) })
      .map((variant) => v({ oneofKind: 'variant', variant })),
    fc.record({ enumId: optIdentArb, constructor: strArb }).map((e) => v({ oneofKind: 'enum', enum: e })),
  ),
})).value;

const createLiteralArb: fc.Arbitrary<Create> = fc.record({
  lfVersion: fc.oneof(fc.constantFrom('2.1', 'dev'), strArb),
  contractId: strArb,
  packageName: strArb,
  templateId: optIdentArb,
  argument: fc.option(valueArb, { nil: undefined }),
  signatories: fc.array(strArb, { maxLength: 3 }),
  stakeholders: fc.array(strArb, { maxLength: 4 }),
});

/** The same Create as a plain literal, through `Create.create`, or decoded from its own bytes. */
const createArb: fc.Arbitrary<{ how: string; create: Create }> = fc
  .tuple(createLiteralArb, fc.constantFrom('literal', 'Create.create', 'fromBinary'))
  .map(([c, how]) => ({
    how,
    create: how === 'literal' ? c : how === 'Create.create' ? Create.create(c) : Create.fromBinary(Create.toBinary(c)),
  }));

const createdAtArb = fc.oneof(
  fc.constantFrom(
    0n,
    1n,
    127n,
    128n,
    1_700_000_000_123_456n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 63n,
    2n ** 64n - 1n,
  ),
  fc.bigInt({ min: 0n, max: 2n ** 53n }),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
);

// ---------------------------------------------------------------------------------------------------- tests

const ALICE = 'Alice::1220' + 'de'.repeat(32);
const BOB = 'Bob::1220' + 'be'.repeat(32);
const TEMPLATE: Identifier = { packageId: 'f'.repeat(64), moduleName: 'Main.Asset', entityName: 'Asset' };

function exampleCreate(): Create {
  return Create.create({
    lfVersion: '2.1',
    contractId: '00' + 'ab'.repeat(32) + 'ca1012' + '34'.repeat(32),
    packageName: 'ledgerline-test',
    templateId: TEMPLATE,
    argument: v({
      oneofKind: 'record',
      record: {
        recordId: TEMPLATE,
        fields: [
          { label: 'owner', value: v({ oneofKind: 'party', party: ALICE }) },
          { label: 'name', value: v({ oneofKind: 'text', text: 'Grüße ✓ 🎉' }) },
          { label: 'amount', value: v({ oneofKind: 'numeric', numeric: '1234.5000000000' }) },
          { label: 'count', value: v({ oneofKind: 'int64', int64: '-42' }) },
          { label: 'since', value: v({ oneofKind: 'timestamp', timestamp: '1700000000123456' }) },
          { label: 'day', value: v({ oneofKind: 'date', date: -3 }) },
          {
            label: 'tags',
            value: v({
              oneofKind: 'list',
              list: { elements: [v({ oneofKind: 'text', text: 'a' }), v({ oneofKind: 'unit', unit: {} })] },
            }),
          },
          { label: 'opt', value: v({ oneofKind: 'optional', optional: {} }) },
          { label: 'color', value: v({ oneofKind: 'enum', enum: { constructor: 'Red' } }) },
          {
            label: 'shape',
            value: v({
              oneofKind: 'variant',
              variant: { constructor: 'Circle', value: v({ oneofKind: 'bool', bool: true }) },
            }),
          },
        ],
      },
    }),
    signatories: [ALICE],
    stakeholders: [ALICE, BOB],
  });
}

/** Computed with the protobuf-ts implementation `createdEventBlobOf` had before the hand-written encoder. */
const EXAMPLE_BLOB =
  'CswGCgMyLjESiAEwMGFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJjYTEwMTIzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0MzQzNDM0Gg9sZWRnZXJsaW5lLXRlc3QiVQpAZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZhIKTWFpbi5Bc3NldBoFQXNzZXQq7AJy6QIKVQpAZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZhIKTWFpbi5Bc3NldBoFQXNzZXQSVgoFb3duZXISTTpLQWxpY2U6OjEyMjBkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlEhoKBG5hbWUSEkIQR3LDvMOfZSDinJMg8J+OiRIbCgZhbW91bnQSETIPMTIzNC41MDAwMDAwMDAwEgsKBWNvdW50EgIYUxISCgVzaW5jZRIJKUAiIBgkCgYAEhIKA2RheRILIP3//////////wESEwoEdGFncxILWgkKA0IBYQoCCgASCQoDb3B0EgJSABIRCgVjb2xvchIIggEFEgNSZWQSFwoFc2hhcGUSDnoMEgZDaXJjbGUaAhABMktBbGljZTo6MTIyMGRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGU6S0FsaWNlOjoxMjIwZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZWRlZGVkZTpJQm9iOjoxMjIwYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZWJlYmViZcA+wMSAwcHEggM=';

describe('createdEventBlobOf / encodeInputContractV1', () => {
  it('returns the same base64 as the protobuf-ts implementation for a fixed example', () => {
    const create = exampleCreate();
    expect(inputContractV1FastPathApplies(create, 1_700_000_000_123_456n)).toBe(true);
    expect(createdEventBlobOf(create, 1_700_000_000_123_456n)).toBe(EXAMPLE_BLOB);
    expect(Buffer.from(EXAMPLE_BLOB, 'base64').toString('hex')).toBe(reference(create, 1_700_000_000_123_456n));
  });

  it('writes bytes identical to Metadata_InputContract.toBinary for arbitrary Creates (fast path taken)', () => {
    fc.assert(
      fc.property(createArb, createdAtArb, ({ create }, createdAt) => {
        expect(inputContractV1FastPathApplies(create, createdAt)).toBe(true);
        const fast = encodeInputContractV1(create, createdAt).toString('hex');
        expect(fast).toBe(reference(create, createdAt));
        expect(fast).toBe(encodeInputContractV1(create, createdAt, false).toString('hex'));
        const decoded = Metadata_InputContract.fromBinary(Buffer.from(fast, 'hex'));
        expect(decoded.createdAt).toBe(createdAt);
      }),
      { numRuns: 1500 },
    );
  });

  it('writes lone surrogates as U+FFFD, like TextEncoder', () => {
    for (const text of ['\ud800', 'a\udc00b', '\udbff\udfff', '\udfff\udbff', 'x'.repeat(60) + '\ud800']) {
      const create = Create.create({ argument: v({ oneofKind: 'text', text }), signatories: [text] });
      expect(inputContractV1FastPathApplies(create, 1n)).toBe(true);
      expect(encodeInputContractV1(create, 1n).toString('hex')).toBe(reference(create, 1n));
    }
    const lone = encodeInputContractV1(Create.create({ contractId: '\ud800' }), 0n);
    expect(lone.toString('hex')).toBe('0a05' + '1203efbfbd');
  });

  it('falls back to protobuf-ts when the Create carries unknown fields (same bytes, unknown field kept)', () => {
    const create = exampleCreate();
    const extra = Buffer.concat([Buffer.from(Create.toBinary(create)), Buffer.from([0x90, 0x03, 0x07])]); // field 50, varint 7
    const decoded = Create.fromBinary(extra);
    expect(inputContractV1FastPathApplies(decoded, 5n)).toBe(false);
    const bytes = encodeInputContractV1(decoded, 5n);
    expect(bytes.toString('hex')).toBe(reference(decoded, 5n));
    expect(bytes.toString('hex')).toContain('900307');

    const keyed = setCreateKey(exampleCreate(), {
      key: {
        templateId: TEMPLATE,
        packageName: 'ledgerline-test',
        key: v({ oneofKind: 'party', party: ALICE }),
        hash: new Uint8Array(32),
      },
      maintainers: [ALICE],
    });
    expect(inputContractV1FastPathApplies(keyed, 5n)).toBe(false);
    expect(createdEventBlobOf(keyed, 5n)).toBe(Buffer.from(reference(keyed, 5n), 'hex').toString('base64'));
    expect(createdEventBlobOf(keyed, 5n)).not.toBe(createdEventBlobOf(exampleCreate(), 5n));
  });

  it('falls back when a nested message carries unknown fields', () => {
    const field = { no: 99, wireType: 0, data: Uint8Array.of(1) };
    const nested: Array<(c: Create) => object> = [
      (c) => c.templateId!,
      (c) => c.argument!,
      (c) => (c.argument!.sum as { record: object }).record,
      (c) => (c.argument!.sum as { record: { fields: object[] } }).record.fields[0],
      (c) => (c.argument!.sum as { record: { recordId: object } }).record.recordId,
      (c) => (c.argument!.sum as { record: { fields: { value: object }[] } }).record.fields[6].value,
      (c) =>
        ((c.argument!.sum as { record: { fields: { value: Value }[] } }).record.fields[6].value.sum as { list: object })
          .list,
      (c) =>
        (
          (c.argument!.sum as { record: { fields: { value: Value }[] } }).record.fields[6].value.sum as {
            list: { elements: Value[] };
          }
        ).list.elements[1].sum as object,
      (c) =>
        (
          (c.argument!.sum as { record: { fields: { value: Value }[] } }).record.fields[7].value.sum as {
            optional: object;
          }
        ).optional,
      (c) =>
        ((c.argument!.sum as { record: { fields: { value: Value }[] } }).record.fields[8].value.sum as { enum: object })
          .enum,
      (c) =>
        (
          (c.argument!.sum as { record: { fields: { value: Value }[] } }).record.fields[9].value.sum as {
            variant: object;
          }
        ).variant,
    ];
    for (const pick of nested) {
      const create = exampleCreate();
      let target = pick(create) as Record<symbol, unknown>;
      // the unit element: put the unknown field on the Empty message itself
      if ('unit' in target) target = target.unit as Record<symbol, unknown>;
      target[UNKNOWN] = [field];
      expect(inputContractV1FastPathApplies(create, 3n)).toBe(false);
      expectSameAsProtobufTs(create, 3n);
      target[UNKNOWN] = []; // an empty list writes nothing: fast path again
      expect(inputContractV1FastPathApplies(create, 3n)).toBe(true);
      expectSameAsProtobufTs(create, 3n);
    }
    const maps = Create.create({
      argument: v({
        oneofKind: 'list',
        list: {
          elements: [
            v({
              oneofKind: 'textMap',
              textMap: { entries: [{ key: 'k', value: v({ oneofKind: 'bool', bool: false }) }] },
            }),
            v({
              oneofKind: 'genMap',
              genMap: { entries: [{ key: v({ oneofKind: 'text', text: 'k' }), value: undefined }] },
            }),
          ],
        },
      }),
    });
    const list = (maps.argument!.sum as { list: { elements: Value[] } }).list.elements;
    const tm = (list[0].sum as { textMap: { entries: object[] } }).textMap;
    const gm = (list[1].sum as { genMap: { entries: object[] } }).genMap;
    for (const target of [tm, tm.entries[0], gm, gm.entries[0]] as Record<symbol, unknown>[]) {
      expect(inputContractV1FastPathApplies(maps, 3n)).toBe(true);
      target[UNKNOWN] = [field];
      expect(inputContractV1FastPathApplies(maps, 3n)).toBe(false);
      expectSameAsProtobufTs(maps, 3n);
      delete target[UNKNOWN];
    }
  });

  it('falls back on unexpected shapes and then behaves exactly like protobuf-ts', () => {
    const withArg = (argument: unknown): Create => ({ ...exampleCreate(), argument: argument as Value });
    const cases: Array<[string, Create, bigint]> = [
      ['int64 with spaces', withArg(v({ oneofKind: 'int64', int64: ' 12 ' })), 1n],
      ['int64 hex', withArg(v({ oneofKind: 'int64', int64: '0x10' })), 1n],
      ['int64 plus sign', withArg(v({ oneofKind: 'int64', int64: '+5' })), 1n],
      ['int64 empty', withArg(v({ oneofKind: 'int64', int64: '' })), 1n],
      ['int64 too large', withArg(v({ oneofKind: 'int64', int64: '9223372036854775808' })), 1n],
      ['int64 too small', withArg(v({ oneofKind: 'int64', int64: '-9223372036854775809' })), 1n],
      ['int64 as bigint', withArg({ sum: { oneofKind: 'int64', int64: 5n } }), 1n],
      ['int64 as number', withArg({ sum: { oneofKind: 'int64', int64: 5 } }), 1n],
      ['timestamp as bigint', withArg({ sum: { oneofKind: 'timestamp', timestamp: -5n } }), 1n],
      ['timestamp exponent', withArg(v({ oneofKind: 'timestamp', timestamp: '1e3' })), 1n],
      ['date fraction', withArg(v({ oneofKind: 'date', date: 1.5 })), 1n],
      ['date out of range', withArg(v({ oneofKind: 'date', date: 2 ** 31 })), 1n],
      ['bool as number', withArg({ sum: { oneofKind: 'bool', bool: 1 } }), 1n],
      ['text as number', withArg({ sum: { oneofKind: 'text', text: 7 } }), 1n],
      ['unknown oneof kind', withArg({ sum: { oneofKind: 'frobnicate', frobnicate: 1 } }), 1n],
      ['missing sum', withArg({}), 1n],
      ['unit missing', withArg({ sum: { oneofKind: 'unit' } }), 1n],
      [
        'variant without constructor',
        withArg({ sum: { oneofKind: 'variant', variant: { value: v({ oneofKind: 'unit', unit: {} }) } } }),
        1n,
      ],
      ['enum without constructor', withArg({ sum: { oneofKind: 'enum', enum: {} } }), 1n],
      ['record without fields', withArg({ sum: { oneofKind: 'record', record: {} } }), 1n],
      [
        'record field without label',
        withArg({
          sum: { oneofKind: 'record', record: { fields: [{ value: v({ oneofKind: 'bool', bool: true }) }] } },
        }),
        1n,
      ],
      ['template id not an object', { ...exampleCreate(), templateId: 'x' as unknown as Identifier }, 1n],
      ['signatory not a string', { ...exampleCreate(), signatories: [1 as unknown as string] }, 1n],
      ['missing stakeholders', { ...exampleCreate(), stakeholders: undefined as unknown as string[] }, 1n],
      ['negative createdAt', exampleCreate(), -1n],
      ['createdAt beyond uint64', exampleCreate(), 2n ** 64n],
      ['createdAt as number', exampleCreate(), 5 as unknown as bigint],
    ];
    for (const [name, create, at] of cases) {
      expect(inputContractV1FastPathApplies(create, at), name).toBe(false);
      expectSameAsProtobufTs(create, at);
    }
  });

  it('skips falsy sub-messages and default scalars exactly like protobuf-ts', () => {
    const empty = Create.create({});
    expect(encodeInputContractV1(empty, 0n).toString('hex')).toBe('0a00');
    expect(reference(empty, 0n)).toBe('0a00');
    const falsy = { ...exampleCreate(), templateId: null as unknown as Identifier, argument: 0 as unknown as Value };
    expect(inputContractV1FastPathApplies(falsy, 0n)).toBe(true);
    expectSameAsProtobufTs(falsy, 0n);
    const emptyMessages = Create.create({
      templateId: {},
      argument: v({ oneofKind: undefined }),
      signatories: [''],
      stakeholders: ['', ''],
    });
    expect(encodeInputContractV1(emptyMessages, 0n).toString('hex')).toBe(
      '0a0a' + '2200' + '2a00' + '3200' + '3a00' + '3a00',
    );
    expectSameAsProtobufTs(emptyMessages, 0n);
    const decoded = Value.fromBinary(Value.toBinary(v({ oneofKind: 'int64', int64: '-9223372036854775808' })));
    expect(decoded.sum).toEqual({ oneofKind: 'int64', int64: '-9223372036854775808' });
    expectSameAsProtobufTs(Create.create({ argument: decoded }), 1n);
  });
});
