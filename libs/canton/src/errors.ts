/** Error raised by the Canton library for invalid input (bad hex, missing node, unsupported key, …). */
export class CantonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CantonError';
  }
}
