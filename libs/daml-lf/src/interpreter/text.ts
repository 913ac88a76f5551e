/**
 * Daml-LF Text: sequences of Unicode code points, ordered as their UTF-8 bytes are (= by code point), not as JavaScript
 * compares UTF-16 units (Canton `data/…/Utf8.scala`).
 */

/** Compare by code point (equivalently by UTF-8 bytes). */
export function compareText(xs: string, ys: string): number {
  if (xs === ys) return 0;
  const lim = Math.min(xs.length, ys.length);
  for (let i = 0; i < lim; i++) {
    const x = xs.charCodeAt(i);
    const y = ys.charCodeAt(i);
    if (x !== y) {
      const j = x >= 0xdc00 && x <= 0xdfff ? i - 1 : i;
      return (xs.codePointAt(j) ?? 0) - (ys.codePointAt(j) ?? 0);
    }
  }
  return xs.length - ys.length;
}

/** The code points of a text, each as a one-code-point string. */
export function explode(s: string): string[] {
  return Array.from(s);
}

export function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/** The text of code points, or the first illegal one (a surrogate or outside 0–0x10FFFF). */
export function fromCodePoints(cps: Iterable<bigint>): { ok: true; text: string } | { ok: false; bad: bigint } {
  let out = '';
  for (const cp of cps) {
    if (cp < 0n || cp > 0x10ffffn || (cp >= 0xd800n && cp <= 0xdfffn)) return { ok: false, bad: cp };
    out += String.fromCodePoint(Number(cp));
  }
  return { ok: true, text: out };
}

/** Canton `Ref.Party`: 1–255 characters of letters, digits, space, ':', '-', '_'. */
export const PARTY_PATTERN = /^[a-zA-Z0-9:\-_ ]{1,255}$/;
export const isParty = (s: string) => PARTY_PATTERN.test(s);

export const HEX_PATTERN = /^([0-9a-f]{2})*$/;
export const isLowerHex = (s: string) => HEX_PATTERN.test(s);
