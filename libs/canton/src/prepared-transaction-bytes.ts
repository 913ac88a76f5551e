import { BinaryReader, WireType } from '@protobuf-ts/runtime';

/**
 * The Create nodes of a serialised `PreparedTransaction`, as the bytes the client sent, by node id. The writer embeds a
 * created contract's Create node in its `createdEventBlob`; re-encoding the decoded node with protobuf-ts was a fifth of
 * the writer's CPU in executeAndWait, and the client's bytes of that message decode to exactly the same node.
 *
 * Field numbers (Canton's interactive submission protos): PreparedTransaction.transaction = 1; DamlTransaction.nodes = 3;
 * DamlTransaction.Node.node_id = 1, .v1 = 1000; transaction.v1.Node: create = 1, fetch = 2, exercise = 3, rollback = 4
 * (one of).
 *
 * Only a plainly encoded transaction is read this way, so that this scan and protobuf-ts's decoder split the bytes into
 * the same fields. The decoder reads a known field by its declared type, whatever its wire type says. It merges a
 * message field that occurs twice, and the last occurrence of a oneof wins. So the scan gives `undefined`, and the
 * caller encodes the decoded node instead, in each of these cases:
 * - a known field on the path (PreparedTransaction 1–2, DamlTransaction 1–4, Node 1 and 1000, v1.Node 1–4) whose wire
 *   type is not length-delimited;
 * - a group anywhere on the path;
 * - a transaction, node id or node version given more than once;
 * - a node whose oneof is set more than once;
 * - bytes that do not parse.
 */
export function rawCreateNodes(preparedTransaction: Uint8Array): Map<string, Uint8Array> | undefined {
  try {
    const top = fieldsOf(preparedTransaction, [1, 2]);
    const transaction = top && only(top, 1);
    if (!transaction) return undefined;
    const txFields = fieldsOf(transaction, [1, 2, 3, 4]);
    if (!txFields) return undefined;
    const out = new Map<string, Uint8Array>();
    for (const f of txFields) {
      if (f.no !== 3) continue;
      const node = fieldsOf(f.data!, [1, 1000]);
      const id = node && only(node, 1);
      const v1 = node && only(node, 1000);
      if (!id || !v1) return undefined;
      const v1Fields = fieldsOf(v1, [1, 2, 3, 4]);
      if (!v1Fields) return undefined;
      const kinds = v1Fields.filter((k) => k.no >= 1 && k.no <= 4);
      if (kinds.length > 1) return undefined;
      if (kinds.length === 0 || kinds[0].no !== 1) continue;
      const nodeId = utf8.decode(id);
      if (out.has(nodeId)) return undefined;
      out.set(nodeId, kinds[0].data!); // length-delimited: fieldsOf checked field 1
    }
    return out;
  } catch {
    return undefined;
  }
}

// As protobuf-ts decodes strings (a leading BOM is part of the id).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Field {
  no: number;
  /** The bytes of a length-delimited field. */
  data?: Uint8Array;
}

/**
 * The fields of one message, or undefined when a field numbered in `lengthDelimited` (the known fields here, all of them
 * strings or messages) has another wire type, or a group appears: there the decoder would frame the bytes differently.
 */
function fieldsOf(bytes: Uint8Array, lengthDelimited: readonly number[]): Field[] | undefined {
  const r = new BinaryReader(bytes);
  const out: Field[] = [];
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (wt === WireType.LengthDelimited) out.push({ no, data: r.bytes() });
    else if (wt === WireType.StartGroup || wt === WireType.EndGroup || lengthDelimited.includes(no)) return undefined;
    else {
      r.skip(wt);
      out.push({ no });
    }
  }
  return out;
}

/** The bytes of field `no` when it occurs exactly once, length-delimited; else undefined. */
function only(fields: readonly Field[], no: number): Uint8Array | undefined {
  const matching = fields.filter((f) => f.no === no);
  return matching.length === 1 ? matching[0].data : undefined;
}
