/** Typed values: JSON ↔ LF (Canton's JSON API codec) and runtime values ↔ Ledger API proto values. */
export { jsonToValue, valueToJson, parseNumericText, type JsonValue } from './json';
export { valueToProto, protoToValue, tryValueToProto, type ToProtoOptions } from './proto';
export type { Decoded, ValueError } from './errors';
export { MAXIMUM_NESTING } from './errors';
export { viewType } from './types';
