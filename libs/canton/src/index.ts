export * from './errors';
export * from './bytes';
export * from './hash-purpose';
export * from './multihash';
export * from './keys';
export * from './jwk';
export * from './fingerprint';
export * from './signatures';
export * from './ed25519';
// The worker's ring is the verifier's business: only the compiled script's path leaves the library.
export { ed25519WorkerScript } from './ed25519-worker';
export * from './contract-keys';
export * from './prepared-transaction-hash';
export * from './ids';
export * from './topology';
export * from './value-json';
export * from './created-event-blob';
export * from './dar';
export * from './daml-lf';
