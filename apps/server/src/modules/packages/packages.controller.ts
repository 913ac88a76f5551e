import type { Readable } from 'node:stream';
import { Body, Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RouteConfig, RouteSchema } from '@nestjs/platform-fastify';
import Ajv from 'ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  noPreferredPackagesFound,
  type Claims,
  type PackageInfo,
  type PreferredPackages,
  type VettedPackagesEntry,
} from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  booleanQuery,
  DecodeError,
  listQuery,
  listVettedPackagesFromJs,
  listVettedPackagesRequestSchema,
  packageReferenceToJs,
  preferredPackagesFromJs,
  preferredPackagesRequestSchema,
  queryDecodeError,
  stringQuery,
  updateVettedPackagesFromJs,
  updateVettedPackagesRequestSchema,
  vettedPackagesToJs,
  type RawListVetted,
  type RawPreferred,
  type RawUpdateVetted,
} from '@ledgerline/wire';
import { validationToDecodeError } from '../../http/error-response';
import { RAW_BODY_CONFIG, readRequestBody } from '../../http/request-body';
import { PostJson } from '../../http/routes';
import { LedgerRuntime } from '../../infrastructure/runtime';
import {
  UpdateVettedPackagesCommand,
  UploadDarCommand,
  ValidateDarCommand,
  type DarSource,
} from './commands/package.commands';
import {
  GetPackageDefinitionsQuery,
  GetPackageQuery,
  GetPackageStatusQuery,
  GetPreferredPackagesQuery,
  ListPackageDefinitionsQuery,
  ListPackagesQuery,
  ListVettedPackagesQuery,
} from './queries/package.queries';

const validateListBody = new Ajv({
  coerceTypes: false,
  useDefaults: false,
  allErrors: false,
  strict: false,
}).compile<RawListVetted>(listVettedPackagesRequestSchema);

const updateResponse = (r: { past: VettedPackagesEntry | null; next: VettedPackagesEntry }) => ({
  ...(r.past ? { pastVettedPackages: vettedPackagesToJs(r.past) } : {}),
  newVettedPackages: vettedPackagesToJs(r.next),
});

/**
 * Packages, DARs, vetting and preferred packages: thin HTTP mapping onto commands and queries (Canton's JsPackageService
 * and the preferred-package routes of JsInteractiveSubmissionService, ledger-json-api: json/v2/). Uploads take the raw
 * DAR bytes, with any Content-Type or none.
 */
@Controller('v2')
export class PackagesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly runtime: LedgerRuntime,
  ) {}

  /** The upload's bytes, read when the handler asks for them (after authorization), within the body-size limit. */
  private darSource(req: FastifyRequest): DarSource {
    return () => {
      const body = req.body as Readable | undefined;
      return body
        ? readRequestBody(body, this.runtime.config.maxBodyBytes, req.headers['content-length'])
        : Promise.resolve(Buffer.alloc(0));
    };
  }

  @Get('packages')
  async list(@CurrentClaims() claims: Claims) {
    return { packageIds: await this.queries.execute<ListPackagesQuery, string[]>(new ListPackagesQuery(claims)) };
  }

  @PostJson('packages')
  @RouteConfig(RAW_BODY_CONFIG)
  uploadPackages(@CurrentClaims() claims: Claims, @Req() req: FastifyRequest, @Query() q: Record<string, unknown>) {
    return this.upload(claims, req, q);
  }

  @PostJson('dars')
  @RouteConfig(RAW_BODY_CONFIG)
  uploadDar(@CurrentClaims() claims: Claims, @Req() req: FastifyRequest, @Query() q: Record<string, unknown>) {
    return this.upload(claims, req, q);
  }

  private async upload(claims: Claims, req: FastifyRequest, q: Record<string, unknown>) {
    const vetAllPackages = booleanQuery('vetAllPackages', q.vetAllPackages, true);
    const synchronizerId = stringQuery('synchronizerId', q.synchronizerId);
    await this.commands.execute(new UploadDarCommand(claims, this.darSource(req), vetAllPackages, synchronizerId));
    return {};
  }

  @PostJson('dars/validate')
  @RouteConfig(RAW_BODY_CONFIG)
  async validate(
    @CurrentClaims() claims: Claims,
    @Req() req: FastifyRequest,
    @Query() q: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ) {
    await this.commands.execute(
      new ValidateDarCommand(claims, this.darSource(req), stringQuery('synchronizerId', q.synchronizerId)),
    );
    // The reference's endpoint declares no output: 200 with an empty body.
    await reply.code(200).send();
  }

  @Get('packages/:packageId')
  async download(@CurrentClaims() claims: Claims, @Param('packageId') packageId: string, @Res() reply: FastifyReply) {
    const pkg = await this.queries.execute<GetPackageQuery, { packageId: string; sizeBytes: number; body: Readable }>(
      new GetPackageQuery(claims, packageId),
    );
    await reply
      .code(200)
      .header('content-type', 'application/octet-stream')
      .header('content-length', String(pkg.sizeBytes))
      .header('canton-package-hash', pkg.packageId)
      .send(pkg.body);
  }

  @Get('packages/:packageId/status')
  async status(@CurrentClaims() claims: Claims, @Param('packageId') packageId: string) {
    const stored = await this.queries.execute<GetPackageStatusQuery, boolean>(
      new GetPackageStatusQuery(claims, packageId),
    );
    return { packageStatus: stored ? 'PACKAGE_STATUS_REGISTERED' : 'PACKAGE_STATUS_UNSPECIFIED' };
  }

  /** Ledgerline's own: what each stored package holds (templates, interfaces), summarised. Any authenticated user. */
  @Get('definitions/packages')
  listDefinitions(@CurrentClaims() claims: Claims) {
    return this.queries.execute(new ListPackageDefinitionsQuery(claims));
  }

  /** Ledgerline's own: a package's modules, templates, choices, interfaces and data types (libs/daml-lf definitions). */
  @Get('definitions/packages/:packageId')
  definitions(@CurrentClaims() claims: Claims, @Param('packageId') packageId: string) {
    return this.queries.execute(new GetPackageDefinitionsQuery(claims, packageId));
  }

  @PostJson('package-vetting/list')
  @RouteSchema({ body: listVettedPackagesRequestSchema })
  listVetted(@CurrentClaims() claims: Claims, @Body() body: RawListVetted | undefined) {
    return this.listVettedOf(claims, body);
  }

  /** Deprecated upstream: a GET that carries its ListVettedPackagesRequest as a JSON body. */
  @Get('package-vetting')
  async listVettedDeprecated(@CurrentClaims() claims: Claims, @Req() req: FastifyRequest) {
    const text = (
      await readRequestBody(req.raw, this.runtime.config.maxBodyBytes, req.headers['content-length'])
    ).toString('utf8');
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch (e) {
        throw new DecodeError('body', `Malformed JSON: ${(e as Error).message}`);
      }
    }
    if (!validateListBody(body)) throw validationToDecodeError({ validation: validateListBody.errors ?? [] });
    return this.listVettedOf(claims, body);
  }

  private listVettedOf(claims: Claims, body: RawListVetted | undefined) {
    const { filter, pageToken, pageSize } = listVettedPackagesFromJs(body);
    return this.queries.execute(new ListVettedPackagesQuery(claims, filter, pageToken, pageSize));
  }

  @PostJson('package-vetting/update')
  @RouteSchema({ body: updateVettedPackagesRequestSchema })
  async updateVetted(@CurrentClaims() claims: Claims, @Body() body: RawUpdateVetted) {
    return updateResponse(
      await this.commands.execute(new UpdateVettedPackagesCommand(claims, () => updateVettedPackagesFromJs(body))),
    );
  }

  /** Deprecated upstream: the same as /v2/package-vetting/update. */
  @PostJson('package-vetting')
  @RouteSchema({ body: updateVettedPackagesRequestSchema })
  async updateVettedDeprecated(@CurrentClaims() claims: Claims, @Body() body: RawUpdateVetted) {
    return updateResponse(
      await this.commands.execute(new UpdateVettedPackagesCommand(claims, () => updateVettedPackagesFromJs(body))),
    );
  }

  @Get('interactive-submission/preferred-package-version')
  async preferredVersion(@CurrentClaims() claims: Claims, @Query() q: Record<string, unknown>) {
    if (q['package-name'] === undefined) throw queryDecodeError('package-name', 'Missing required query parameter');
    const request = {
      requirements: [{ parties: listQuery(q.parties), packageName: stringQuery('package-name', q['package-name']) }],
      synchronizerId: stringQuery('synchronizer-id', q['synchronizer-id']),
      vettingValidAt: stringQuery('vetting_valid_at', q.vetting_valid_at),
    };
    const chosen = await this.queries.execute<GetPreferredPackagesQuery, PreferredPackages | null>(
      new GetPreferredPackagesQuery(claims, request),
    );
    return chosen
      ? {
          packagePreference: {
            packageReference: packageReferenceToJs(chosen.packages[0]),
            synchronizerId: chosen.synchronizerId,
          },
        }
      : {};
  }

  @PostJson('interactive-submission/preferred-packages')
  @RouteSchema({ body: preferredPackagesRequestSchema })
  async preferredPackages(@CurrentClaims() claims: Claims, @Body() body: RawPreferred) {
    const chosen = await this.queries.execute<GetPreferredPackagesQuery, PreferredPackages | null>(
      new GetPreferredPackagesQuery(claims, preferredPackagesFromJs(body)),
    );
    if (!chosen) throw noPreferredPackagesFound('No synchronizer satisfies the vetting requirements.');
    return {
      packageReferences: chosen.packages.map((p: PackageInfo) => packageReferenceToJs(p)),
      synchronizerId: chosen.synchronizerId,
    };
  }
}
