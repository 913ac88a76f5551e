import { invalidArgument, missingField, notFound } from '../errors';

/**
 * `update_id`: non-empty, hex, and a SHA-256 multihash (`1220` + 64 hex characters), as Canton's
 * UpdateServiceRequestValidator requires.
 */
export function validateUpdateId(id: string | undefined): string {
  if (!id) throw missingField('update_id');
  if (!/^[0-9a-fA-F]*$/.test(id) || id.length % 2 !== 0) throw invalidArgument(`Failed to parse hex string: ${id}`);
  if (!id.toLowerCase().startsWith('1220')) {
    throw invalidArgument(
      `Invalid hash algorithm with index ${parseInt(id.slice(0, 2) || '0', 16)} in ${id}: only SHA-256 multihashes (1220…) are accepted`,
    );
  }
  if (id.length !== 68)
    throw invalidArgument(`Invalid hash length ${(id.length - 4) / 2} for SHA-256 (expected 32) in ${id}`);
  return id.toLowerCase();
}

export const updateNotFound = (id: string) =>
  notFound('UPDATE_NOT_FOUND', 'Update not found, or not visible.', [['UPDATE_ID', id]]);
