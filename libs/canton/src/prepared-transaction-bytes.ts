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
 * Only a plainly encoded transaction is read this way. Protobuf merges a message field that occurs twice, and the last
 * occurrence of a oneof wins. So a transaction, node or node version that occurs more than once, or a node whose oneof
 * is set more than once, gives `undefined`, and the caller encodes the decoded node instead. The same happens for bytes
 * that do not parse.
 */
export function rawCreateNodes(preparedTransaction: Uint8Array): Map<string, Uint8Array> | undefined {
  try {
    const transaction = only(fieldsOf(preparedTransaction), 1);
    if (!transaction) return undefined;
    const out = new Map<string, Uint8Array>();
    for (const f of fieldsOf(transaction)) {
      if (f.no !== 3) continue;
      if (!f.data) return undefined;
      const node = fieldsOf(f.data);
      const id = only(node, 1);
      const v1 = only(node, 1000);
      if (!id || !v1) return undefined;
      const kinds = fieldsOf(v1).filter((k) => k.no >= 1 && k.no <= 4);
      if (kinds.length > 1) return undefined;
      if (kinds.length === 0 || kinds[0].no !== 1) continue;
      if (!kinds[0].data) return undefined;
      const nodeId = utf8.decode(id);
      if (out.has(nodeId)) return undefined;
      out.set(nodeId, kinds[0].data);
    }
    return out;
  } catch {
    return undefined;
  }
}

const utf8 = new TextDecoder();

interface Field {
  no: number;
  /** The bytes of a length-delimited field. */
  data?: Uint8Array;
}

function fieldsOf(bytes: Uint8Array): Field[] {
  const r = new BinaryReader(bytes);
  const out: Field[] = [];
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (wt === WireType.LengthDelimited) out.push({ no, data: r.bytes() });
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
