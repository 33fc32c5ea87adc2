import { CreateSigningKeysAndIssuedPasses1763900000000 } from './1763900000000-CreateSigningKeysAndIssuedPasses';
import { IssuedPassesByExpiry1763900000001 } from './1763900000001-IssuedPassesByExpiry';

/** Schema `identity`: owned by identity-issuer (issued passes, development signing keys). */
export const IDENTITY_SCHEMA = 'identity';
export const IDENTITY_MIGRATIONS = [CreateSigningKeysAndIssuedPasses1763900000000, IssuedPassesByExpiry1763900000001];
