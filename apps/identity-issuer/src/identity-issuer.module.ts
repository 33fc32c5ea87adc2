import { DynamicModule, Module } from '@nestjs/common';
import { ContactsClient } from '@svc/internal-clients';
import { appStack } from '@svc/persistence';
import { APP_LOGGER, closedOnShutdown, InternalAuth } from '@svc/platform';
import type { Logger } from 'pino';
import { IDENTITY_ISSUER_CONFIG, IdentityIssuerConfig } from './identity-issuer.config';
import { DevSigningKeysRepository } from './keys/dev-signing-keys.repository';
import { keyRingProvider } from './keys/key-ring.provider';
import { IDENTITY_MIGRATIONS, IDENTITY_SCHEMA } from './migrations';
import { IdentityController } from './passes/identity.controller';
import { IdentityService } from './passes/identity.service';
import { InternalIdentityController } from './passes/internal-identity.controller';
import { IssuedPassesRepository } from './passes/issued-passes.repository';
import { PassRetention } from './passes/pass-retention';
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
        { provide: IDENTITY_ISSUER_CONFIG, useValue: config },
        DevSigningKeysRepository,
        keyRingProvider,
        PassTokenService,
        IssuedPassesRepository,
        IdentityService,
        PassRetention,
        {
          provide: ContactsClient,
          inject: [InternalAuth, IDENTITY_ISSUER_CONFIG, APP_LOGGER],
          useFactory: (auth: InternalAuth, { CONTACTS_API_URL, CONTACTS_API_TIMEOUT_MS }: IdentityIssuerConfig, root: Logger) =>
            new ContactsClient({ url: CONTACTS_API_URL, auth, timeoutMs: CONTACTS_API_TIMEOUT_MS, logger: root }),
        },
        closedOnShutdown(ContactsClient),
      ],
    };
  }
}
