import { AppDefinition } from '@svc/platform';
import { identityIssuerConfigSpec } from './identity-issuer.config';
import { IdentityIssuerModule } from './identity-issuer.module';

export const app: AppDefinition<typeof identityIssuerConfigSpec> = {
  name: 'identity-issuer',
  configSpec: identityIssuerConfigSpec,
  module: (config, logger) => IdentityIssuerModule.forRoot(config, logger),
};
