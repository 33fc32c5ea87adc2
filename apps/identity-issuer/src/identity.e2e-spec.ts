import { ErrorBody, IdentityPassResponseDto, VerifyIdentityPassResponse } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth, loadConfig } from '@svc/platform';
import { queryRows } from '@svc/persistence';
import { freePort, internalKeysEnv, REPO_ROOT, RunningApp, Stack, startApp, startStack, TEST_SERVER_URL } from '@svc/testing';
import { createLocalJWKSet, decodeProtectedHeader, JSONWebKeySet, jwtVerify } from 'jose';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { identityIssuerConfigSpec } from './identity-issuer.config';
import { generateEd25519 } from './keys/signing-keys';

const errorCode = async (response: Response) => ((await response.json()) as ErrorBody).error.code;

describe('identity-issuer through the gateway (processes, real PostgreSQL)', () => {
  let stack: Stack;
  let internal: InternalAuth;

  const issuer = (): RunningApp => stack.services['identity-issuer'] as RunningApp;
  const putContact = (ref: string, json: object, key?: string) =>
    stack.call(`/contacts/${encodeURIComponent(ref)}`, { method: 'PUT', json, ...(key ? { key } : {}) });
  const issue = (ref: string, key?: string) =>
    stack.call(`/contacts/${encodeURIComponent(ref)}/identity`, { method: 'POST', ...(key ? { key } : {}) });

  /** What the chat does: ask identity-issuer, with a context signed like every internal call. */
  const verify = async (body: unknown, signed = true): Promise<Response> => {
    const context = await internal.sign('identity-issuer', {
      account: { id: stack.account.accountId, name: 'chat', plan: 'scale' },
      keyId: 'chat',
      requestId: randomUUID(),
    });
    return fetch(`${issuer().internalUrl}/internal/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signed ? { [GATEWAY_CONTEXT_HEADER]: context } : {}) },
      body: JSON.stringify(body),
    });
  };
  const verified = async (token: string, accountId = stack.account.accountId) => {
    const response = await verify({ token, account_id: accountId });
    expect(response.status).toBe(200);
    return ((await response.json()) as VerifyIdentityPassResponse).customer;
  };
  const passFor = async (ref: string): Promise<IdentityPassResponseDto> => {
    const response = await issue(ref);
    expect(response.status).toBe(201);
    return (await response.json()) as IdentityPassResponseDto;
  };

  beforeAll(async () => {
    // identity-issuer calls contacts-api directly, so contacts-api gets a port known in advance.
    const contactsPort = await freePort();
    stack = await startStack(['contacts-api', 'identity-issuer'], {
      appEnv: {
        'contacts-api': { INTERNAL_PORT: String(contactsPort) },
        'identity-issuer': { CONTACTS_API_URL: `http://127.0.0.1:${contactsPort}` },
      },
    });
    internal = InternalAuth.fromEnv('chat', stack.env);
    expect(
      (await putContact('c-42', { name: 'Ada Lovelace', email: 'ada@example.com', email_confirmed: true, phone: '+447700900123' })).status,
    ).toBe(201);
    expect((await putContact('c-77', { name: 'Other Customer' }, stack.other.key)).status).toBe(201);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('POST /contacts/{ref}/identity → 201 {token, expires_at} in 30 days, as a write, recorded, and the chat is told who it is', async () => {
    const before = Date.now();
    const response = await issue('c-42');
    expect(response.status).toBe(201);
    expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    const body = (await response.json()) as IdentityPassResponseDto;
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'token']);
    expect(body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    const lifetime = Date.parse(body.expires_at) - before;
    expect(Math.abs(lifetime - 30 * 24 * 3600 * 1000)).toBeLessThan(60_000);

    const customer = await verified(body.token);
    expect(customer).toEqual({
      svc_id: expect.any(Number),
      ref: 'c-42',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      email_confirmed: true,
      phone: '+447700900123',
      phone_confirmed: false,
    });
    const [record] = await queryRows<{ account_id: string; svc_id: number; expires_at: string }>(
      stack.dataSource,
      'SELECT account_id, svc_id::int AS svc_id, expires_at FROM identity.issued_passes WHERE svc_id = $1',
      [customer?.svc_id ?? null],
    );
    expect(record).toEqual({ account_id: stack.account.accountId, svc_id: customer?.svc_id, expires_at: body.expires_at });
  });

  it("404 not_found for another account's customer and for an unknown ref; nothing is issued", async () => {
    const [{ n: before }] = await queryRows<{ n: number }>(stack.dataSource, 'SELECT count(*)::int AS n FROM identity.issued_passes');
    for (const ref of ['c-77', 'nobody']) {
      const response = await issue(ref);
      expect(response.status).toBe(404);
      expect(await errorCode(response)).toBe('not_found');
    }
    const [{ n: after }] = await queryRows<{ n: number }>(stack.dataSource, 'SELECT count(*)::int AS n FROM identity.issued_passes');
    expect(after).toBe(before);
  });

  it('takes any ref of 1 to 255 characters, URL-encoded; 400 validation_failed for a longer one', async () => {
    for (const ref of ['a/b c?d#é', '✓'.repeat(255)]) {
      expect((await putContact(ref, { name: 'Long Ref' })).status).toBe(201);
      expect((await issue(ref)).status).toBe(201);
    }
    const response = await issue('x'.repeat(256));
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({ code: 'validation_failed', details: [{ path: 'ref' }] });
  });

  it("a pass identifies nobody on another account's widget, nor when altered", async () => {
    const { token } = await passFor('c-42');
    expect(await verified(token, stack.other.accountId)).toBeNull();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString()) as { sub: string };
    const altered = Buffer.from(JSON.stringify({ ...claims, sub: String(Number(claims.sub) + 1) })).toString('base64url');
    expect(await verified(`${header}.${altered}.${signature}`)).toBeNull();
  });

  it('verification needs a signed context (401 without) and a valid body (400)', async () => {
    const { token } = await passFor('c-42');
    const unsigned = await verify({ token, account_id: stack.account.accountId }, false);
    expect(unsigned.status).toBe(401);
    const bad = await verify({ token, account_id: 'not-a-uuid' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.details?.map((d) => d.path)).toEqual(['account_id']);
  });

  it('serves the public keys as a JWKS without a context; the chat can verify passes with it', async () => {
    const { token } = await passFor('c-42');
    const response = await fetch(`${issuer().internalUrl}/internal/identity/jwks.json`);
    expect(response.status).toBe(200);
    const jwks = (await response.json()) as JSONWebKeySet;
    expect(jwks.keys.map((key) => key.kid)).toContain(decodeProtectedHeader(token).kid);
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'svc-identity-issuer', audience: 'svc-chat' });
    expect(payload['acc']).toBe(stack.account.accountId);
  });

  it('the generated development key survives a restart: passes issued before still identify', async () => {
    const { token } = await passFor('c-42');
    const kids = async () =>
      ((await (await fetch(`${issuer().internalUrl}/internal/identity/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map(
        (k) => k.kid,
      );
    const before = await kids();
    await stack.restart('identity-issuer');
    expect(await kids()).toEqual(before);
    expect((await verified(token))?.ref).toBe('c-42');
    expect(decodeProtectedHeader((await passFor('c-42')).token).kid).toBe(decodeProtectedHeader(token).kid);
  });

  it('a pass of an erased customer identifies nobody', async () => {
    expect((await putContact('c-erase', { name: 'Gone Soon', email: 'gone@example.com' })).status).toBe(201);
    const { token } = await passFor('c-erase');
    expect((await verified(token))?.ref).toBe('c-erase');
    expect((await stack.call('/contacts/c-erase', { method: 'DELETE' })).status).toBe(204);
    expect(await verified(token)).toBeNull();
  });

  // Last: it stops contacts-api.
  it('503 unavailable, not "nobody", while contacts-api cannot be asked', async () => {
    const { token } = await passFor('c-42');
    await stack.services['contacts-api']?.stop();
    const issued = await issue('c-42');
    expect(issued.status).toBe(503);
    expect(await errorCode(issued)).toBe('unavailable');
    const checked = await verify({ token, account_id: stack.account.accountId });
    expect(checked.status).toBe(503);
    expect(checked.headers.get('retry-after')).toBe('1');
  });
});

describe('identity-issuer keys in production', () => {
  const production = (extra: Record<string, string>) => ({
    NODE_ENV: 'production',
    ...internalKeysEnv(),
    DATABASE_URL: TEST_SERVER_URL,
    MIGRATE_ON_START: 'false',
    ...extra,
  });

  it('refuses to start with the development key committed for the local cluster, saying so', async () => {
    const committed = join(REPO_ROOT, 'k8s/overlays/dev/identity-signing-key.dev-only.json');
    await expect(startApp('identity-issuer', production({ IDENTITY_SIGNING_KEYS: committed }), 10_000, '/healthz')).rejects.toThrow(
      /IDENTITY_SIGNING_KEYS holds key "dev-only", a development key published in this repository: generate keys of your own/,
    );
  });

  it('refuses to start with the development internal keys, saying so', async () => {
    const own = JSON.stringify({ ...(generateEd25519().privateKey.export({ format: 'jwk' }) as object), kid: 'own' });
    const development = production({ IDENTITY_SIGNING_KEYS: own, IDENTITY_ISSUER_INTERNAL_KEY: '', INTERNAL_PUBLIC_KEYS: '' });
    const { IDENTITY_ISSUER_INTERNAL_KEY: key, INTERNAL_PUBLIC_KEYS: keys } = loadConfig(identityIssuerConfigSpec, {
      ALLOW_INSECURE_DEV_DEFAULTS: 'true',
    });
    const failure = await startApp(
      'identity-issuer',
      { ...development, IDENTITY_ISSUER_INTERNAL_KEY: key, INTERNAL_PUBLIC_KEYS: keys },
      10_000,
      '/healthz',
    ).then(
      async (app) => {
        await app.stop();
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(failure).toMatch(/IDENTITY_ISSUER_INTERNAL_KEY is a value published in this repository: set a secret of your own/);
    expect(failure).toMatch(/INTERNAL_PUBLIC_KEYS lists a development key published in this repository/);
  });

  it('refuses to start without IDENTITY_SIGNING_KEYS, naming it', async () => {
    await expect(startApp('identity-issuer', production({}), 10_000, '/healthz')).rejects.toThrow(/IDENTITY_SIGNING_KEYS is required/);
  });

  it('publishes every configured key, and only their public halves', async () => {
    const jwk = (kid: string) => ({ ...(generateEd25519().privateKey.export({ format: 'jwk' }) as object), kid });
    const app = await startApp(
      'identity-issuer',
      production({ IDENTITY_SIGNING_KEYS: JSON.stringify([jwk('2026-11'), jwk('2026-10')]) }),
      20_000,
      '/healthz',
    );
    try {
      const jwks = (await (await fetch(`${app.internalUrl}/internal/identity/jwks.json`)).json()) as {
        keys: Array<Record<string, string>>;
      };
      expect(jwks.keys.map((key) => key['kid'])).toEqual(['2026-11', '2026-10']);
      for (const key of jwks.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    } finally {
      await app.stop();
    }
  });
});
