import { create } from '@bufbuild/protobuf';
import { ledgerApi } from '@ledgerline/grpc';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { apiVersionInfo } from '../modules/system/api-version';
import { unary } from './grpc-call';

/** VersionService: what GET /v2/version reports. Any authenticated caller (Canton's VersionService needs a token). */
export function versionService(runtime: LedgerRuntime) {
  return {
    getLedgerApiVersion: unary(runtime, async (_request: ledgerApi.GetLedgerApiVersionRequest, call) => {
      await call.claims();
      const v = apiVersionInfo(runtime.clock);
      return create(ledgerApi.GetLedgerApiVersionResponseSchema, {
        version: v.version,
        features: {
          experimental: { staticTime: { supported: v.staticTime } },
          userManagement: v.userManagement,
          partyManagement: v.partyManagement,
          offsetCheckpoint: {
            maxOffsetCheckpointEmissionDelay: { seconds: BigInt(v.maxOffsetCheckpointEmissionDelaySeconds) },
          },
          packageFeature: v.packageFeature,
        },
      });
    }),
  };
}
