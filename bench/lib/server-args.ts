/**
 * Node arguments for a benchmark's server process: BENCH_SERVER_NODE_ARGS (space-separated, e.g. `--cpu-prof` or
 * `--max-semi-space-size=64`); the service itself starts with Node's defaults, as `npm start` and the Docker image do.
 */
export function serverNodeArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
}
