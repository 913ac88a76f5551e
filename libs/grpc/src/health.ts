import {
  status as Status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
  type HealthCheckRequest,
  type HealthCheckResponse,
} from './gen/grpc/health/v1/health_pb';

/**
 * `grpc.health.v1.Health`: `SERVING` for the server as a whole (service "") and for each service served while
 * `serving()` holds (the database answers), else `NOT_SERVING`; an unknown service is `NOT_FOUND` (Check) or
 * `SERVICE_UNKNOWN` (Watch), as the standard says. Watch sends the status when it changes, looking every `watchMs`.
 */
export function healthImplementation(
  serviceNames: readonly string[],
  serving: () => Promise<boolean>,
  watchMs = 1000,
): UntypedServiceImplementation {
  const known = new Set(['', ...serviceNames]);
  const statusOf = async (service: string): Promise<ServingStatus> =>
    !known.has(service)
      ? ServingStatus.SERVICE_UNKNOWN
      : (await serving().catch(() => false))
        ? ServingStatus.SERVING
        : ServingStatus.NOT_SERVING;
  return {
    check: (
      call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>,
      done: sendUnaryData<HealthCheckResponse>,
    ) => {
      void statusOf(call.request.service).then((status) =>
        status === ServingStatus.SERVICE_UNKNOWN
          ? done({ code: Status.NOT_FOUND, details: `Unknown service ${call.request.service}` })
          : done(null, create(HealthCheckResponseSchema, { status })),
      );
    },
    watch: (call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) => {
      let last: ServingStatus | undefined;
      let timer: NodeJS.Timeout | undefined;
      const look = async () => {
        const status = await statusOf(call.request.service);
        if (call.cancelled) return;
        if (status !== last) {
          last = status;
          call.write(create(HealthCheckResponseSchema, { status }));
        }
        timer = setTimeout(() => void look(), watchMs);
      };
      call.on('cancelled', () => clearTimeout(timer));
      call.on('error', () => clearTimeout(timer));
      void look();
    },
  };
}
