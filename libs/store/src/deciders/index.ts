export * from './party-update.decider';
export * from './execute-submission.decider';
export * from './reassignment.decider';
export * from './user-update.decider';
