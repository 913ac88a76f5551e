import { DecodeError } from '@ledgerline/wire';

export const headerDecodeError = (name: string) => new DecodeError(`header ${name}`, '');
