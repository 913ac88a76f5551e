import { invalidArgument } from './errors';

/**
 * Opaque page tokens of the list endpoints: the base64url of the last key of the previous page. A token that is not the
 * canonical encoding of a key (or holds characters no key can have, such as NUL) is refused before it reaches a query.
 */
export function encodePageToken(lastKey: string): string {
  return Buffer.from(lastKey, 'utf8').toString('base64url');
}

export function decodePageToken(token: string): string {
  const key = Buffer.from(token, 'base64url').toString('utf8');
  // eslint-disable-next-line no-control-regex -- a page token must not carry control characters: the class names them
  if (!key || encodePageToken(key) !== token || /[\u0000-\u001f\ufffd]/.test(key))
    throw invalidArgument('Invalid page token');
  return key;
}
