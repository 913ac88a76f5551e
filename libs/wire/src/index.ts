export * from './js-canton-error';
export * from './decode-error';
export * from './codecs/int64';
export * from './codecs/rights';
export * from './codecs/object-meta';
export * from './codecs/user';
export * from './codecs/updates';
