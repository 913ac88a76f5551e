/** The transaction room: seeds, V1 contract ids and the partial transaction. */
export { deriveTransactionSeed, deriveNodeSeed, deriveContractDiscriminator, contractIdV1 } from './seeds';
export { PartialTransaction, LF_VERSION, type CreateInput } from './partial-transaction';
