/**
 * ECDSA verification on secp256k1 over a given 32-byte digest (Canton's SECP256K1_WITH_ECDSA_BOOL, "NONEwithECDSA"),
 * which node:crypto cannot do (it always hashes). Affine BigInt arithmetic: slow but short. Keys are DER SPKI (as
 * Java's `PublicKey.getEncoded`), signatures DER (r, s).
 */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const G = {
  x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
};
type Pt = { x: bigint; y: bigint } | null;

const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;
function inv(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [mod(a, m), m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return mod(s0, m);
}
function add(a: Pt, b: Pt): Pt {
  if (!a) return b;
  if (!b) return a;
  if (a.x === b.x) {
    if (mod(a.y + b.y, P) === 0n) return null;
    const l = mod(3n * a.x * a.x * inv(2n * a.y, P), P);
    const x = mod(l * l - 2n * a.x, P);
    return { x, y: mod(l * (a.x - x) - a.y, P) };
  }
  const l = mod((b.y - a.y) * inv(b.x - a.x, P), P);
  const x = mod(l * l - a.x - b.x, P);
  return { x, y: mod(l * (a.x - x) - a.y, P) };
}
function mul(k: bigint, p: Pt): Pt {
  let r: Pt = null;
  let q = p;
  while (k > 0n) {
    if (k & 1n) r = add(r, q);
    q = add(q, q);
    k >>= 1n;
  }
  return r;
}
function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b = mod(b, m);
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

const big = (b: Uint8Array) => (b.length ? BigInt('0x' + Buffer.from(b).toString('hex')) : 0n);

/** Minimal DER reader: returns [tag, content, rest]. */
function der(b: Uint8Array): [number, Uint8Array, Uint8Array] {
  if (b.length < 2) throw new Error('truncated DER');
  let len = b[1];
  let off = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = (len << 8) | b[2 + i];
    off = 2 + n;
  }
  if (off + len > b.length) throw new Error('truncated DER');
  return [b[0], b.subarray(off, off + len), b.subarray(off + len)];
}

/** The EC point of a DER SubjectPublicKeyInfo on secp256k1 (uncompressed or compressed). */
export function parsePublicKey(spki: Uint8Array): Pt {
  const [t, seq] = der(spki);
  if (t !== 0x30) throw new Error('not a SubjectPublicKeyInfo');
  const [, , rest] = der(seq); // AlgorithmIdentifier
  const [bt, bits] = der(rest);
  if (bt !== 0x03 || bits[0] !== 0) throw new Error('bad public key bit string');
  const k = bits.subarray(1);
  if (k[0] === 4 && k.length === 65) return { x: big(k.subarray(1, 33)), y: big(k.subarray(33)) };
  if ((k[0] === 2 || k[0] === 3) && k.length === 33) {
    const x = big(k.subarray(1));
    let y = modPow(mod(x * x * x + 7n, P), (P + 1n) / 4n, P);
    if ((y & 1n) !== BigInt(k[0] & 1)) y = P - y;
    return { x, y };
  }
  throw new Error('unsupported public key encoding');
}

export function verifyDigest(digest: Uint8Array, signatureDer: Uint8Array, publicKey: Pt): boolean {
  const [t, seq] = der(signatureDer);
  if (t !== 0x30) throw new Error('not a DER signature');
  const [rt, rb, rest] = der(seq);
  const [st, sb] = der(rest);
  if (rt !== 2 || st !== 2) throw new Error('not a DER signature');
  const r = big(rb);
  const s = big(sb);
  if (r <= 0n || r >= N || s <= 0n || s >= N || !publicKey) return false;
  const z = big(digest.subarray(0, 32));
  const w = inv(s, N);
  const x = add(mul(mod(z * w, N), G), mul(mod(r * w, N), publicKey));
  return x !== null && mod(x.x, N) === r;
}
