import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AuthSettings, ClaimsResolver, KeyResolver, LedgerAuthGuard, LedgerJwtStrategy } from '@ledgerline/auth';
import { SignatureVerifier } from '@ledgerline/canton';
import { CommitNotifier, EventStore } from '@ledgerline/store';
import { HttpMetrics } from './metrics';
import { ParticipantIdentity } from './participant-identity';
import { LedgerRuntime } from './runtime';
import { UserClaimsResolver } from './user-claims.resolver';
import { IdentityProviderDirectoryRef } from './identity-provider-directory';
import { TemplateDirectories } from './template-directories';
import { CommandInterpreter } from './command-interpreter';
import { InterfaceDirectories } from './interface-directories';
import { STORE_REPOSITORIES } from './repositories';

/**
 * Makes the runtime (database, event store, identity, metrics, signature verifier), the store's repositories and
 * authentication available to every capability module.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(runtime: LedgerRuntime): DynamicModule {
    const idps = new IdentityProviderDirectoryRef();
    const settings: AuthSettings = {
      scope: runtime,
      policy: {
        participantId: runtime.identity.participantId,
        targetAudience: runtime.config.jwtAudience,
        targetScope: runtime.config.jwtScope,
      },
      keys: new KeyResolver({
        hmacSecret: runtime.jwtSecret,
        publicKeyPem: runtime.config.jwtPublicKey,
        jwksUrl: runtime.config.jwksUrl,
        identityProviders: idps,
      }),
    };
    return {
      module: CoreModule,
      imports: [PassportModule],
      providers: [
        { provide: LedgerRuntime, useValue: runtime },
        { provide: EventStore, useValue: runtime.eventStore },
        { provide: CommitNotifier, useValue: runtime.notifier },
        { provide: ParticipantIdentity, useValue: runtime.identity },
        { provide: HttpMetrics, useValue: runtime.metrics },
        { provide: SignatureVerifier, useValue: runtime.signatures },
        { provide: IdentityProviderDirectoryRef, useValue: idps },
        { provide: AuthSettings, useValue: settings },
        ...STORE_REPOSITORIES,
        { provide: ClaimsResolver, useClass: UserClaimsResolver },
        LedgerJwtStrategy,
        { provide: APP_GUARD, useClass: LedgerAuthGuard },
        TemplateDirectories,
        CommandInterpreter,
        InterfaceDirectories,
      ],
      exports: [
        LedgerRuntime,
        EventStore,
        CommitNotifier,
        ParticipantIdentity,
        HttpMetrics,
        SignatureVerifier,
        ...STORE_REPOSITORIES,
        IdentityProviderDirectoryRef,
        TemplateDirectories,
        CommandInterpreter,
        InterfaceDirectories,
      ],
    };
  }
}
