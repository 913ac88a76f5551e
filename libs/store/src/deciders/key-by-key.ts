/**
 * The state of each key read by its own statements, one key after the other (the rare commands: their batches hold few
 * of them, so one statement for all keys would save little).
 */
export async function keyByKey<K, S>(keys: readonly K[], read: (key: K) => Promise<S>): Promise<S[]> {
  const out: S[] = [];
  for (const k of keys) out.push(await read(k));
  return out;
}
