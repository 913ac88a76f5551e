/**
 * V8 flags the service is started with: package.json's `start` script and the Dockerfile's CMD name them, and the
 * benchmarks start their server processes with them (a unit test keeps the three equal). They cannot be set from
 * inside the running process, because V8 sizes its heap when the process starts; `node dist/apps/server/src/main.js`
 * run by hand can take them through NODE_OPTIONS.
 *
 * `--max-semi-space-size=64` (MB; Node 20's default is 16): a larger young generation. Under load each request's
 * objects (body, decoded transaction, rendered events, batch rows) live for one or two writer batches, 30–100 ms. With
 * the default young generation a scavenge came every ~80 ms and copied much of that working set each time (3–20 ms
 * per scavenge, 5 % of the event loop), promoting ~0.4 MB per scavenge to the old generation. With 64 MB the
 * scavenges are four times rarer at about the same cost each (docs/architecture.md, Young generation).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
