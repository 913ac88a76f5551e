/**
 * Persistent ordered maps for TextMap and GenMap (Canton's `SMap` is a `TreeMap` ordered by `svalue/Ordering.scala`):
 * weight-balanced trees (Adams; the balance parameters of Haskell's `Data.Map`, delta 3 and ratio 2). Insert, lookup and
 * delete are O(log n) and share every untouched subtree with their input; no operation copies a map. A map is a node or
 * `null` (empty); nodes are immutable. `V` is the value type (`V` in the interpreter).
 */
export interface MapNode<K, V> {
  readonly k: K;
  readonly v: V;
  readonly l: MapTree<K, V>;
  readonly r: MapTree<K, V>;
  /** Number of entries in this subtree. */
  readonly n: number;
}
export type MapTree<K, V> = MapNode<K, V> | null;

export type KeyOrder<K> = (a: K, b: K) => number;

const DELTA = 3;
const RATIO = 2;

export const mapSize = <K, V>(t: MapTree<K, V>): number => (t === null ? 0 : t.n);

const node = <K, V>(k: K, v: V, l: MapTree<K, V>, r: MapTree<K, V>): MapNode<K, V> => ({
  k,
  v,
  l,
  r,
  n: mapSize(l) + mapSize(r) + 1,
});

/** Rebuilds a node whose subtrees went out of balance by at most one insertion or deletion. */
function balance<K, V>(k: K, v: V, l: MapTree<K, V>, r: MapTree<K, V>): MapNode<K, V> {
  const sl = mapSize(l);
  const sr = mapSize(r);
  if (sl + sr <= 1) return node(k, v, l, r);
  if (sr > DELTA * sl) {
    const rr = r!;
    if (mapSize(rr.l) < RATIO * mapSize(rr.r)) return node(rr.k, rr.v, node(k, v, l, rr.l), rr.r);
    const rl = rr.l!;
    return node(rl.k, rl.v, node(k, v, l, rl.l), node(rr.k, rr.v, rl.r, rr.r));
  }
  if (sl > DELTA * sr) {
    const ll = l!;
    if (mapSize(ll.r) < RATIO * mapSize(ll.l)) return node(ll.k, ll.v, ll.l, node(k, v, ll.r, r));
    const lr = ll.r!;
    return node(lr.k, lr.v, node(ll.k, ll.v, ll.l, lr.l), node(k, v, lr.r, r));
  }
  return node(k, v, l, r);
}

export function mapLookup<K, V>(t: MapTree<K, V>, key: K, cmp: KeyOrder<K>): V | undefined {
  while (t !== null) {
    const c = cmp(key, t.k);
    if (c === 0) return t.v;
    t = c < 0 ? t.l : t.r;
  }
  return undefined;
}

/** The map with `key` bound to `value` (an existing binding is replaced, its key by the new one). */
export function mapInsert<K, V>(t: MapTree<K, V>, key: K, value: V, cmp: KeyOrder<K>): MapNode<K, V> {
  if (t === null) return { k: key, v: value, l: null, r: null, n: 1 };
  const c = cmp(key, t.k);
  if (c === 0) return { k: key, v: value, l: t.l, r: t.r, n: t.n };
  return c < 0
    ? balance(t.k, t.v, mapInsert(t.l, key, value, cmp), t.r)
    : balance(t.k, t.v, t.l, mapInsert(t.r, key, value, cmp));
}

/** The map without `key`; the same map when `key` is absent. */
export function mapDelete<K, V>(t: MapTree<K, V>, key: K, cmp: KeyOrder<K>): MapTree<K, V> {
  if (t === null) return null;
  const c = cmp(key, t.k);
  if (c < 0) {
    const l = mapDelete(t.l, key, cmp);
    return l === t.l ? t : balance(t.k, t.v, l, t.r);
  }
  if (c > 0) {
    const r = mapDelete(t.r, key, cmp);
    return r === t.r ? t : balance(t.k, t.v, t.l, r);
  }
  return glue(t.l, t.r);
}

/** Joins two balanced trees whose keys are ordered (all of `l` before all of `r`) and whose sizes are balanced. */
function glue<K, V>(l: MapTree<K, V>, r: MapTree<K, V>): MapTree<K, V> {
  if (l === null) return r;
  if (r === null) return l;
  if (l.n > r.n) {
    const [k, v, rest] = removeMax(l);
    return balance(k, v, rest, r);
  }
  const [k, v, rest] = removeMin(r);
  return balance(k, v, l, rest);
}

function removeMin<K, V>(t: MapNode<K, V>): [K, V, MapTree<K, V>] {
  if (t.l === null) return [t.k, t.v, t.r];
  const [k, v, l] = removeMin(t.l);
  return [k, v, balance(t.k, t.v, l, t.r)];
}

function removeMax<K, V>(t: MapNode<K, V>): [K, V, MapTree<K, V>] {
  if (t.r === null) return [t.k, t.v, t.l];
  const [k, v, r] = removeMax(t.r);
  return [k, v, balance(t.k, t.v, t.l, r)];
}

/** A balanced tree of entries already sorted by key, without duplicates (O(n)). */
export function mapFromSorted<K, V>(entries: readonly (readonly [K, V])[]): MapTree<K, V> {
  const build = (lo: number, hi: number): MapTree<K, V> => {
    if (lo >= hi) return null;
    const mid = (lo + hi) >>> 1;
    const [k, v] = entries[mid];
    return { k, v, l: build(lo, mid), r: build(mid + 1, hi), n: hi - lo };
  };
  return build(0, entries.length);
}

/**
 * A map of entries in any order: sorted by `cmp`, a later entry of an equal key replacing the earlier one (as inserting
 * them one after the other does).
 */
export function mapFromEntries<K, V>(entries: readonly (readonly [K, V])[], cmp: KeyOrder<K>): MapTree<K, V> {
  const sorted = entries.map((e, i) => [e, i] as const).sort((x, y) => cmp(x[0][0], y[0][0]) || x[1] - y[1]);
  const out: (readonly [K, V])[] = [];
  for (const [e] of sorted) {
    if (out.length && cmp(out[out.length - 1][0], e[0]) === 0) out[out.length - 1] = e;
    else out.push(e);
  }
  return mapFromSorted(out);
}

/** Calls `f` on each entry in key order (an explicit stack: the depth is O(log n)). */
export function mapForEach<K, V>(t: MapTree<K, V>, f: (k: K, v: V) => void): void {
  const stack: MapNode<K, V>[] = [];
  let cur = t;
  for (;;) {
    while (cur !== null) {
      stack.push(cur);
      cur = cur.l;
    }
    const x = stack.pop();
    if (x === undefined) return;
    f(x.k, x.v);
    cur = x.r;
  }
}

/** The entries in key order. */
export function mapEntries<K, V>(t: MapTree<K, V>): [K, V][] {
  const out: [K, V][] = [];
  mapForEach(t, (k, v) => out.push([k, v]));
  return out;
}

/** `f` of each entry, in key order. */
export function mapToArray<K, V, T>(t: MapTree<K, V>, f: (k: K, v: V) => T): T[] {
  const out: T[] = [];
  mapForEach(t, (k, v) => out.push(f(k, v)));
  return out;
}

/** Builds a list right to left from the entries (last entry first), for Cons lists in key order without an array. */
export function mapFoldRight<K, V, A>(t: MapTree<K, V>, z: A, f: (k: K, v: V, acc: A) => A): A {
  const stack: MapNode<K, V>[] = [];
  let cur = t;
  let acc = z;
  for (;;) {
    while (cur !== null) {
      stack.push(cur);
      cur = cur.r;
    }
    const x = stack.pop();
    if (x === undefined) return acc;
    acc = f(x.k, x.v, acc);
    cur = x.l;
  }
}
