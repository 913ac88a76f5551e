/**
 * A refusal of the token standard's registry API. Its specifications (splice's token-standard `*-v1.yaml`) answer
 * errors with their own body, `{"error": "<message>"}`, and the status: 400 for a bad request, 404 for an unknown
 * contract or instrument, 409 for a contract that is being reassigned.
 */
export class TokenRegistryError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'TokenRegistryError';
  }

  /** The specifications' ErrorResponse. */
  get body(): { error: string } {
    return { error: this.message };
  }
}

export const isTokenRegistryError = (e: unknown): e is TokenRegistryError => e instanceof TokenRegistryError;
export const registryBadRequest = (message: string) => new TokenRegistryError(400, message);
export const registryNotFound = (message: string) => new TokenRegistryError(404, message);

/** The contract is being reassigned: the specification's 409 (its synchronizer is not known until it is assigned). */
export const registryReassigning = (contractId: string) =>
  new TokenRegistryError(409, `Contract '${contractId}' is being reassigned to another synchronizer.`);
