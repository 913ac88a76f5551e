/**
 * Estimated heap sizes of the values builtins and constructors build, charged to an interpretation's memory budget before
 * they are built (`MachineOps.charge`). Estimates of V8's layout on 64-bit: an object header and its fields, 2 bytes a
 * character for text (the worst case of V8's one- and two-byte strings).
 */
export const CONS_BYTES = 32;
export const RECORD_BYTES = 48;
/** A `{ t, v }` value cell. */
export const CELL_BYTES = 32;
export const MAP_NODE_BYTES = 56;
/** A text value of `length` UTF-16 units: its cell and its characters. */
export const textBytes = (length: number) => CELL_BYTES + 16 + 2 * length;
/** A list of `n` elements, each a new cell of `elementBytes`. */
export const listBytes = (n: number, elementBytes: number) => n * (CONS_BYTES + elementBytes);
/** Default budget of one interpretation: 256 MiB. */
export const DEFAULT_MAX_MEMORY_BYTES = 256 * 1024 * 1024;
