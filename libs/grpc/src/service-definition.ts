import type { ServiceDefinition, MethodDefinition } from '@grpc/grpc-js';
import { fromBinary, toBinary, type DescMessage, type DescService, type MessageShape } from '@bufbuild/protobuf';

/**
 * A protobuf service (a generated `GenService`) as @grpc/grpc-js's service definition: paths `/<package.Service>/<Rpc>`,
 * messages (de)serialized by @bufbuild/protobuf. The implementation's keys are the methods' local names (`getLedgerEnd`).
 */
export function serviceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    const request = codec(method.input);
    const response = codec(method.output);
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
      responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
      requestSerialize: request.serialize,
      requestDeserialize: request.deserialize,
      responseSerialize: response.serialize,
      responseDeserialize: response.deserialize,
      originalName: method.name,
    };
  }
  return definition;
}

function codec(schema: DescMessage) {
  return {
    serialize: (message: unknown) => Buffer.from(toBinary(schema, message as MessageShape<DescMessage>)),
    deserialize: (bytes: Buffer) => fromBinary(schema, bytes) as unknown,
  };
}
