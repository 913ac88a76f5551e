/**
 * Command completions: what became of each accepted submission (an accepted completion is its committed update, a rejected
 * one a CommandRejected event at its own offset), the status encoding of rejections, and the completion stream's request
 * rules.
 */
export * from './events';
export * from './status';
export * from './completion';
export * from './stream-request';
export * from './by-hash';
