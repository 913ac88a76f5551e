import 'reflect-metadata';
import cluster from 'node:cluster';
import { createApp } from './app';
import { ConfigError, loadConfig, StartRefusedError } from './config';
import { makeLogger, startRuntime } from './infrastructure/runtime';
import { clusterWorkerSlot, runClusterPrimary } from './infrastructure/cluster';
import { announceExplorer } from './infrastructure/explorer-link';
import { BootstrapService } from './modules/bootstrap/bootstrap.service';
import { startGrpcServer, type GrpcLedgerApi } from './grpc/grpc-server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  if (config.workers > 1 && cluster.isPrimary) {
    await runClusterPrimary(config, makeLogger(config));
    return;
  }
  const worker = cluster.isWorker ? (clusterWorkerSlot() ?? cluster.worker?.id) : undefined;
  const logger = worker === undefined ? makeLogger(config) : makeLogger(config).child({ worker });
  const runtime = await startRuntime(config, logger);
  const app = await createApp(runtime);
  if (config.bootstrap) {
    // Before the port opens: clients never see a half-bootstrapped ledger from this process.
    const report = await app.get(BootstrapService).apply(config.bootstrap);
    if (report.problems.length) {
      console.error(`Bootstrap (LEDGER_BOOTSTRAP_FILE) refused:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`);
      await app.close();
      await runtime.close();
      process.exit(2);
    }
    logger.info(
      {
        parties: report.partiesAllocated,
        users: report.usersCreated,
        dars: report.darsUploaded,
        contracts: report.contractsCreated,
      },
      'bootstrap file applied',
    );
  }
  // gRPC first: once HTTP answers (GET /livez reports the bound gRPC port), both are served.
  let grpc: GrpcLedgerApi | null = null;
  if (config.grpcPort !== null) {
    grpc = await startGrpcServer(app, runtime, { host: config.host, port: config.grpcPort });
    runtime.grpcPort = grpc.port;
  }
  await app.listen({ port: config.port, host: config.host });
  logger.info(
    {
      port: config.port,
      grpcPort: grpc?.port ?? null,
      participantId: runtime.identity.participantId,
      synchronizers: runtime.identity.synchronizers.map((s) => s.id),
      ed25519: runtime.signatures.ed25519.backend,
    },
    `Ledgerline listening on http://${config.host}:${config.port}` +
      (grpc ? `, gRPC Ledger API on ${config.host}:${grpc.port}` : ''),
  );
  // Once per machine: by the single process, or by the first worker.
  if (!worker) await announceExplorer(runtime, logger, (line) => process.stderr.write(line));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new requests, finishing in-flight appends');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      // Keep-alive connections whose request finishes during the close turn idle afterwards and would hold the close
      // open until their keep-alive timeout: keep closing idle connections until every in-flight request has answered.
      const server = app.getHttpServer();
      const sweep = setInterval(() => server.closeIdleConnections?.(), 50);
      await Promise.all([app.close(), grpc?.close()]); // stop accepting, wait for in-flight requests and calls
      clearInterval(sweep);
      await runtime.close(); // drains the event store, closes the pool, stops embedded Postgres
      process.exit(0);
    } catch (e) {
      logger.error({ err: e }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((e) => {
  if (e instanceof StartRefusedError) {
    console.error(`Ledgerline refused to start: ${e.message}`);
    process.exit(2);
  }
  console.error('Ledgerline failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
