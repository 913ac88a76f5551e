import { create } from '@bufbuild/protobuf';
import type { Readable } from 'node:stream';
import type { INestApplicationContext } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ledgerApi } from '@ledgerline/grpc';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { GetPackageQuery, GetPackageStatusQuery, ListPackagesQuery } from '../modules/packages/queries/package.queries';
import { unary } from './grpc-call';

async function bytesOf(body: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** PackageService: the queries of GET /v2/packages… (PackagesController), over gRPC. */
export function packageService(app: INestApplicationContext, runtime: LedgerRuntime) {
  const queries = app.get(QueryBus);
  return {
    listPackages: unary(runtime, async (_request, call) => {
      const packageIds: string[] = await queries.execute(new ListPackagesQuery(await call.claims()));
      return create(ledgerApi.ListPackagesResponseSchema, { packageIds });
    }),
    getPackage: unary(runtime, async (request: ledgerApi.GetPackageRequest, call) => {
      const pkg: { packageId: string; sizeBytes: number; body: Readable } = await queries.execute(
        new GetPackageQuery(await call.claims(), request.packageId),
      );
      return create(ledgerApi.GetPackageResponseSchema, {
        hashFunction: ledgerApi.HashFunction.SHA256,
        archivePayload: await bytesOf(pkg.body),
        hash: pkg.packageId,
      });
    }),
    getPackageStatus: unary(runtime, async (request: ledgerApi.GetPackageStatusRequest, call) => {
      const stored: boolean = await queries.execute(new GetPackageStatusQuery(await call.claims(), request.packageId));
      return create(ledgerApi.GetPackageStatusResponseSchema, {
        packageStatus: stored ? ledgerApi.PackageStatus.REGISTERED : ledgerApi.PackageStatus.UNSPECIFIED,
      });
    }),
  };
}
