import { DynamicModule, Module } from '@nestjs/common';
import { appStack, repositoryProviders } from '@svc/persistence';
import { closedOnShutdown, InternalAuth, pruneJobProvider } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ContactsClient } from '@svc/internal-clients';
import { IdentityIssuerConfig } from './identity-issuer.config';
import { loadDevelopmentKeyRing } from './keys/dev-signing-keys';
import { DevSigningKeysRepository } from './keys/dev-signing-keys.repository';
import { configuredKeyRing, KeyRing } from './keys/key-ring';
import { IDENTITY_MIGRATIONS, IDENTITY_SCHEMA } from './migrations';
import { IdentityController } from './passes/identity.controller';
import { IdentityService } from './passes/identity.service';
import { InternalIdentityController } from './passes/internal-identity.controller';
import { IssuedPassesRepository } from './passes/issued-passes.repository';
import { PassTokenService } from './passes/pass-token.service';

@Module({})
export class IdentityIssuerModule {
  static forRoot(config: IdentityIssuerConfig, logger: Logger): DynamicModule {
    return {
      module: IdentityIssuerModule,
      imports: appStack('identity-issuer', {
        config,
        logger,
        schema: IDENTITY_SCHEMA,
        migrations: IDENTITY_MIGRATIONS,
        behindGateway: true,
      }),
      controllers: [IdentityController, InternalIdentityController],
      providers: [
        {
          provide: KeyRing,
          inject: [DataSource],
          // Configured keys whenever given; the configuration requires them in production, so the
          // generated key is reached only in development and tests.
          useFactory: (db: DataSource) =>
            config.IDENTITY_SIGNING_KEYS.length > 0
              ? configuredKeyRing(config.IDENTITY_SIGNING_KEYS, config.IDENTITY_ACTIVE_KID)
              : loadDevelopmentKeyRing(new DevSigningKeysRepository(db), config.INTERNAL_AUTH_SECRET, logger),
        },
        {
          provide: PassTokenService,
          inject: [KeyRing],
          useFactory: (keys: KeyRing) =>
            new PassTokenService(keys, { issuer: config.IDENTITY_TOKEN_ISSUER, audience: config.IDENTITY_TOKEN_AUDIENCE }),
        },
        {
          provide: ContactsClient,
          inject: [InternalAuth],
          useFactory: (auth: InternalAuth) =>
            new ContactsClient({ url: config.CONTACTS_API_URL, auth, timeoutMs: config.CONTACTS_API_TIMEOUT_MS, logger }),
        },
        ...repositoryProviders(IssuedPassesRepository),
        {
          provide: IdentityService,
          inject: [ContactsClient, PassTokenService, IssuedPassesRepository],
          useFactory: (contacts: ContactsClient, tokens: PassTokenService, passes: IssuedPassesRepository) =>
            new IdentityService(contacts, tokens, passes, logger),
        },
        pruneJobProvider(
          IssuedPassesRepository,
          { what: 'pass records', retentionDays: config.IDENTITY_PASS_RETENTION_DAYS, intervalMs: config.IDENTITY_PRUNE_INTERVAL_MS },
          logger.child({ component: 'pass-retention' }),
        ),
        closedOnShutdown(ContactsClient),
      ],
    };
  }
}
