import { databaseConfigSpec } from '@svc/persistence';
import { callerConfigSpec, Config, count, millis, optional, refuseInProduction, serviceUrl, str } from '@svc/platform';
import { makeValidator } from 'envalid';
import { readSigningKeys, SigningKey } from './keys/signing-keys';

/** Ed25519 JWKs, inline or from a file or directory; validated at boot, never echoed in errors. */
const signingKeys = makeValidator<SigningKey[]>(readSigningKeys);

/**
 * The public keys (`x`) of signing keys committed to this repository, which production refuses:
 * k8s/overlays/dev/identity-signing-key.dev-only.json (the development cluster's).
 */
export const COMMITTED_SIGNING_KEYS = new Set(['YrDNktMJAfkxdImJwosi8Cnfhx7p_ZB73MdM_ZiqKd8']);

export const identityIssuerConfigSpec = {
  ...callerConfigSpec(
    'identity-issuer',
    'Port of identity-issuer (same-browser passes; reached through the gateway, and by the chat on /internal).',
  ),
  ...databaseConfigSpec('identity-issuer owns schema `identity` (issued passes, development signing keys)'),
  CONTACTS_API_URL: serviceUrl('contacts-api', 'contacts-api (customers, consents).'),
  CONTACTS_API_TIMEOUT_MS: millis(60_000)({
    default: 5_000,
    desc: 'How long identity-issuer waits for contacts-api to answer a customer lookup before 503.',
  }),
  IDENTITY_SIGNING_KEYS: refuseInProduction(
    signingKeys({
      devDefault: [],
      desc: 'Ed25519 JWKs (each with a `kid`) of same-browser passes: inline JSON (a JWK, an array or `{"keys":[…]}`) or the path of a file, or of a directory of `*.json` files (a mounted Kubernetes Secret). All verify; public-only JWKs (no `d`) verify old passes after a rotation. Required in production; in development a key is generated once and kept, sealed, in table `identity.signing_keys`.',
    }),
    (keys) => {
      const committed = keys.find((key) => COMMITTED_SIGNING_KEYS.has(String(key.publicKey.export({ format: 'jwk' }).x)));
      return committed
        ? `IDENTITY_SIGNING_KEYS holds key "${committed.kid}", a development key published in this repository: generate keys of your own`
        : undefined;
    },
  ),
  IDENTITY_ACTIVE_KID: optional(
    str,
    'The `kid` of the key in IDENTITY_SIGNING_KEYS that signs new passes (it needs its private part); empty: the first key.',
  ),
  IDENTITY_TOKEN_ISSUER: str({ default: 'svc-identity-issuer', desc: 'The `iss` claim of same-browser passes.' }),
  IDENTITY_TOKEN_AUDIENCE: str({ default: 'svc-chat', desc: 'The `aud` claim of same-browser passes: the chat, which verifies them.' }),
  IDENTITY_PASS_RETENTION_DAYS: count({
    default: 30,
    desc: 'Days the record of an issued pass (ids and times, never the token) is kept after the pass expires, before the prune job removes it.',
  }),
  IDENTITY_PRUNE_INTERVAL_MS: millis()({ default: 600_000, desc: 'How often the prune job runs.' }),
};

export type IdentityIssuerConfig = Config<typeof identityIssuerConfigSpec>;
/** The settings, validated at start: `@Inject(IDENTITY_ISSUER_CONFIG) config: IdentityIssuerConfig` (or a Pick of it). */
export const IDENTITY_ISSUER_CONFIG = Symbol('IDENTITY_ISSUER_CONFIG');
