/**
 * The node flags the service runs with, as `npm start` and the Docker image start it: a young generation of 8 MB
 * semi-spaces keeps the server's peak resident memory under 300 MB in bench:read (V8's default lets it grow to
 * 16 MB ones) at no measurable cost in throughput (docs/benchmarks.md, bench:read).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * Node arguments for a benchmark's server process: the service's own flags, then BENCH_SERVER_NODE_ARGS (space-separated,
 * e.g. `--cpu-prof`; a later flag of the same name wins).
 */
export function serverNodeArgs(): string[] {
  return [...SERVICE_NODE_FLAGS, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
}
