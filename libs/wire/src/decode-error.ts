/**
 * A request that does not decode (malformed JSON, wrong JSON type, bad base64, unknown enum name, bad query parameter):
 * the reference answers 400 with a text/plain body `Invalid value for: <source> (<detail>)`, not a JsCantonError.
 */
export class DecodeError extends Error {
  constructor(
    readonly source: string,
    readonly detail: string,
  ) {
    super(`Invalid value for: ${source}${detail ? ` (${detail})` : ''}`);
    this.name = 'DecodeError';
  }
}

export const bodyDecodeError = (detail: string, at?: string) =>
  new DecodeError('body', at !== undefined ? `${detail} at '${at}'` : detail);
export const queryDecodeError = (name: string, detail = '') => new DecodeError(`query parameter ${name}`, detail);
export const pathDecodeError = (name: string, detail = '') => new DecodeError(`path parameter ${name}`, detail);
