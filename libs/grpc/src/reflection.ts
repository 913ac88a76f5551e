import { status as Status, type ServerDuplexStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { create, toBinary, type DescFile, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import * as v1 from './gen/grpc/reflection/v1/reflection_pb';
import * as v1alpha from './gen/grpc/reflection/v1alpha/reflection_pb';

type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;
type Response = v1.ServerReflectionResponse;

/** What reflection answers from: the files (their dependencies are found) and the names of the services served. */
export class ReflectionIndex {
  private readonly files = new Map<string, DescFile>();
  private readonly symbols = new Map<string, DescFile>();

  constructor(
    files: readonly DescFile[],
    readonly serviceNames: readonly string[],
  ) {
    const add = (file: DescFile) => {
      const name = file.proto.name;
      if (this.files.has(name)) return;
      this.files.set(name, file);
      for (const dep of file.dependencies) add(dep);
      const addMessage = (m: DescMessage) => {
        this.symbols.set(m.typeName, file);
        for (const nested of m.nestedMessages) addMessage(nested);
        for (const e of m.nestedEnums) this.symbols.set(e.typeName, file);
      };
      for (const m of file.messages) addMessage(m);
      for (const e of file.enums) this.symbols.set(e.typeName, file);
      for (const s of file.services) {
        this.symbols.set(s.typeName, file);
        for (const method of s.methods) this.symbols.set(`${s.typeName}.${method.name}`, file);
      }
    };
    for (const file of files) add(file);
  }

  /** The file and every file it depends on, transitively, serialized (as grpc-java's reflection answers). */
  private withDependencies(file: DescFile): Uint8Array[] {
    const out: Uint8Array[] = [];
    const seen = new Set<string>();
    const visit = (f: DescFile) => {
      if (seen.has(f.proto.name)) return;
      seen.add(f.proto.name);
      out.push(toBinary(FileDescriptorProtoSchema, f.proto));
      for (const dep of f.dependencies) visit(dep);
    };
    visit(file);
    return out;
  }

  answer(request: Request): Omit<Response, '$typeName' | 'originalRequest' | 'validHost'> {
    const notFound = (what: string) => ({
      messageResponse: {
        case: 'errorResponse' as const,
        value: create(v1.ErrorResponseSchema, { errorCode: Status.NOT_FOUND, errorMessage: `${what} not found` }),
      },
    });
    const files = (file: DescFile | undefined, what: string) =>
      file === undefined
        ? notFound(what)
        : {
            messageResponse: {
              case: 'fileDescriptorResponse' as const,
              value: create(v1.FileDescriptorResponseSchema, { fileDescriptorProto: this.withDependencies(file) }),
            },
          };
    const r = request.messageRequest;
    switch (r.case) {
      case 'listServices':
        return {
          messageResponse: {
            case: 'listServicesResponse',
            value: create(v1.ListServiceResponseSchema, { service: this.serviceNames.map((name) => ({ name })) }),
          },
        };
      case 'fileByFilename':
        return files(this.files.get(r.value), `File ${r.value}`);
      case 'fileContainingSymbol':
        return files(this.symbols.get(r.value.replace(/^\./, '')), `Symbol ${r.value}`);
      case 'fileContainingExtension':
        return notFound(`Extension ${r.value.containingType}(${r.value.extensionNumber})`);
      case 'allExtensionNumbersOfType':
        return {
          messageResponse: {
            case: 'allExtensionNumbersResponse',
            value: create(v1.ExtensionNumberResponseSchema, { baseTypeName: r.value, extensionNumber: [] }),
          },
        };
      default:
        return {
          messageResponse: {
            case: 'errorResponse',
            value: create(v1.ErrorResponseSchema, {
              errorCode: Status.INVALID_ARGUMENT,
              errorMessage: 'Empty request',
            }),
          },
        };
    }
  }
}

/**
 * `grpc.reflection.v1.ServerReflection` (and the v1alpha twin older tools ask for): list the services, and the file
 * descriptors by file name or symbol, so that generic tools (grpcurl, Postman) can call the API without its .proto files.
 */
export function reflectionImplementation(index: ReflectionIndex, alpha = false): UntypedServiceImplementation {
  return {
    serverReflectionInfo: (call: ServerDuplexStream<Request, Response>) => {
      call.on('data', (request: Request) => {
        const answer = index.answer(request);
        const original = alpha
          ? create(v1alpha.ServerReflectionRequestSchema, request as v1alpha.ServerReflectionRequest)
          : create(v1.ServerReflectionRequestSchema, request as v1.ServerReflectionRequest);
        const schema = alpha ? v1alpha.ServerReflectionResponseSchema : v1.ServerReflectionResponseSchema;
        call.write(
          create(schema as typeof v1.ServerReflectionResponseSchema, {
            validHost: request.host,
            originalRequest: original as v1.ServerReflectionRequest,
            ...answer,
          }),
        );
      });
      call.on('end', () => call.end());
      call.on('error', () => undefined);
    },
  };
}
