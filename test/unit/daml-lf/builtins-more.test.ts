/** Crypto, hex, BigNumeric, Any/TypeRep builtins (SBuiltinTest's crypto cases restated, plus the BigNumeric limits). */
import { generateKeyPairSync, sign, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Expr } from '@ledgerline/daml-lf';
import { call, int, num, qn, str, tcon, T, tb } from './ast-builders';
import { evalResult, show } from './eval-helpers';

const ok = (e: Expr) => {
  const r = evalResult(e);
  if (r.tag !== 'done') throw new Error(JSON.stringify(r.tag === 'error' ? r.error : r.tag));
  return show(r.value);
};
const cryptoError = (e: Expr) => {
  const r = evalResult(e);
  return r.tag === 'error' && r.error.tag === 'Crypto' ? r.error.message : undefined;
};
const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit';

describe('KECCAK256_TEXT', () => {
  it.each([
    ['00', 'bc36789e7a1e281436464229828f817d6612f7b477d66591ff96a9e064bcc98a'],
    ['0000', '54a8c0ab653c15bfb48b47fd011ba2b9617af01cb45cab344acd57c924d56798'],
    ['deadbeef', 'd4fd4e189132273036449fc9e11198c739161b4c0116a9a2dccdfa1c492006f1'],
    [
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'a332df1e58a99d8dcb0767dab2d23985ef337d59fadbe040f56e1c642b314973',
    ],
    ['', 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'],
  ])('digests %j', (i, o) => expect(ok(call('KECCAK256_TEXT', str(i)))).toBe(o));
  it('digests inputs longer than one block', () => {
    expect(ok(call('KECCAK256_TEXT', str('61'.repeat(200))))).toMatch(/^[0-9a-f]{64}$/);
  });
  it.each(['0', '000', '0g', 'DeadBeef', '843d0824-9133-4bc9-b0e8-7cb4e8487dd1', 'input', LOREM, 'a¶‱😂'])(
    'refuses %j',
    (i) =>
      expect(cryptoError(call('KECCAK256_TEXT', str(i)))).toBe(`MalformedByteEncoding(${i}, can not parse hex string)`),
  );
});

describe('HEX_TO_TEXT / TEXT_TO_HEX', () => {
  it.each([
    ['Hello world!', '48656c6c6f20776f726c6421'],
    ['DeadBeef', '4465616442656566'],
    [
      '843d0824-9133-4bc9-b0e8-7cb4e8487dd1',
      '38343364303832342d393133332d346263392d623065382d376362346538343837646431',
    ],
    ['a¶‱😂', '61c2b6e280b1f09f9882'],
  ])('%j ↔ %s', (t, h) => {
    expect(ok(call('TEXT_TO_HEX', str(t)))).toBe(h);
    expect(ok(call('HEX_TO_TEXT', str(h)))).toBe(t);
  });
  it.each(['0', '000', '0g', '843d0824-9133-4bc9-b0e8-7cb4e8487dd1', 'input', LOREM, 'a¶‱😂'])(
    'HEX_TO_TEXT refuses %j',
    (i) =>
      expect(cryptoError(call('HEX_TO_TEXT', str(i)))).toBe(
        `MalformedByteEncoding(${i}, can not parse hex string argument)`,
      ),
  );
});

describe('SECP256K1', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const keyHex = publicKey.export({ format: 'der', type: 'spki' }).toString('hex');
  const message = 'deadbeef';
  const digest = createHash('sha256').update(Buffer.from(message, 'hex')).digest('hex');
  const signature = sign('sha256', Buffer.from(message, 'hex'), privateKey).toString('hex');
  const other = sign('sha256', Buffer.from('cafe', 'hex'), privateKey).toString('hex');
  it('SECP256K1_BOOL verifies a SHA256withECDSA signature of the message', () => {
    expect(ok(call('SECP256K1_BOOL', str(signature), str(message), str(keyHex)))).toBe(true);
    expect(ok(call('SECP256K1_BOOL', str(other), str(message), str(keyHex)))).toBe(false);
  });
  it('SECP256K1_WITH_ECDSA_BOOL verifies the signature over the given digest', () => {
    expect(ok(call('SECP256K1_WITH_ECDSA_BOOL', str(signature), str(digest), str(keyHex)))).toBe(true);
    expect(ok(call('SECP256K1_WITH_ECDSA_BOOL', str(signature), str(message), str(keyHex)))).toBe(false);
  });
  it('compressed keys are accepted; malformed inputs are crypto errors', () => {
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    const x = Buffer.from(jwk.x, 'base64url');
    const y = Buffer.from(jwk.y, 'base64url');
    // SubjectPublicKeyInfo { id-ecPublicKey, secp256k1 } with a compressed point
    const compressed = Buffer.concat([
      Buffer.from('3036301006072a8648ce3d020106052b8104000a032200', 'hex'),
      Buffer.from([2 + (y[31] & 1)]),
      x,
    ]).toString('hex');
    expect(ok(call('SECP256K1_WITH_ECDSA_BOOL', str(signature), str(digest), str(compressed)))).toBe(true);
    expect(ok(call('SECP256K1_VALIDATE_KEY', str(compressed)))).toBe(true);
    expect(ok(call('SECP256K1_VALIDATE_KEY', str('00')))).toBe(false);
    expect(cryptoError(call('SECP256K1_BOOL', str('zz'), str(message), str(keyHex)))).toBe(
      'MalformedByteEncoding(zz, can not parse signature hex string)',
    );
    expect(cryptoError(call('SECP256K1_BOOL', str(signature), str(message), str('0011')))).toMatch(
      /^MalformedKey\(0011, /,
    );
  });
});

describe('BigNumeric', () => {
  const big = (n: string) => call('NUMERIC_TO_BIGNUMERIC', num(n));
  it('adds, multiplies, divides with a rounding mode and converts back', () => {
    expect(ok(call('BIGNUMERIC_TO_TEXT', call('ADD_BIGNUMERIC', big('1.50'), big('2.25'))))).toBe('3.75');
    expect(
      ok(
        call(
          'BIGNUMERIC_TO_TEXT',
          call('MUL_BIGNUMERIC', big('1' + '0'.repeat(37) + '.'), big('1' + '0'.repeat(37) + '.')),
        ),
      ),
    ).toBe('1' + '0'.repeat(74) + '.0');
    const div = (mode: string) =>
      call(
        'BIGNUMERIC_TO_TEXT',
        call(
          'DIV_BIGNUMERIC',
          int(0),
          { tag: 'lit', lit: { tag: 'roundingMode', value: mode as 'HALF_EVEN' } },
          big('5.'),
          big('2.'),
        ),
      );
    expect(ok(div('HALF_EVEN'))).toBe('2.0');
    expect(ok(div('HALF_UP'))).toBe('3.0');
    expect(ok(div('FLOOR'))).toBe('2.0');
    expect(evalResult(div('UNNECESSARY')).tag).toBe('error');
    expect(ok(call('BIGNUMERIC_TO_NUMERIC', num('1.00'), call('SHIFT_RIGHT_BIGNUMERIC', int(2), big('314.'))))).toBe(
      '3.14',
    );
    expect(ok(call('SCALE_BIGNUMERIC', big('1.2300')))).toBe(2n);
    expect(ok(call('PRECISION_BIGNUMERIC', big('1.2300')))).toBe(3n);
  });
  it('fails with ArithmeticError beyond its bounds', () => {
    const r = evalResult(call('SHIFT_RIGHT_BIGNUMERIC', int(-40000), big('1.')));
    expect(r.tag === 'error' && r.error.tag).toBe('UnhandledException');
    const d = evalResult(call('DIV_BIGNUMERIC', int(0), int(6), big('1.'), big('0.')));
    expect(d.tag === 'error' && d.error.tag).toBe('UnhandledException');
  });
});

describe('Any and TypeRep', () => {
  const a = qn('M', 'A');
  it('TYPE_REP_TYCON_NAME names type constructors only', () => {
    expect(ok(call('TYPE_REP_TYCON_NAME', { tag: 'typeRep', type: tcon(a) }))).toEqual({ some: `${a.packageId}:M:A` });
    expect(ok(call('TYPE_REP_TYCON_NAME', { tag: 'typeRep', type: T.int }))).toBeNull();
  });
  it('fromAny returns the value only at the same type', () => {
    const any = { tag: 'toAny', type: T.int, expr: int(5) } as Expr;
    expect(ok({ tag: 'fromAny', type: T.int, expr: any })).toEqual({ some: 5n });
    expect(ok({ tag: 'fromAny', type: T.text, expr: any })).toBeNull();
    expect(ok({ tag: 'fromAny', type: tb('LIST', T.int), expr: any })).toBeNull();
  });
});
