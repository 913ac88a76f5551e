import { SERVER_NODE_FLAGS } from '@ledgerline/server/node-flags';

/**
 * Node arguments for a benchmark's server process: the flags the service is started with (package.json, Dockerfile), then
 * BENCH_SERVER_NODE_ARGS (space-separated; V8 takes the last value of a flag given twice, so these can override).
 */
export function serverNodeArgs(): string[] {
  return [...SERVER_NODE_FLAGS, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
}
