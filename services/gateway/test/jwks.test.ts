import { createPublicKey } from 'node:crypto';
import request from 'supertest';
import { createLogger, generateDevKeyPair, signAccessToken, signingKeyId } from '@binzip/shared';
import { configSchema } from '../src/config';
import { buildGateway } from '../src/gateway';
import { serveLocally, type LocalServer } from './helpers';

const logger = createLogger('gateway-test', 'silent');
const claims = { userId: 7, userName: 'tester', authority: 'USER' as const, userType: 'NONE' as const };
const oldKeys = generateDevKeyPair();
const newKeys = generateDevKeyPair();
const jwksOf = (...publicKeys: string[]) => JSON.stringify({ keys: publicKeys.map((pem) => createPublicKey(pem).export({ format: 'jwk' })) });

describe('gateway during a key rotation', () => {
  let upstream: LocalServer;
  beforeAll(async () => {
    upstream = await serveLocally((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"SUCCESS","message":"성공"}');
    });
  });
  afterAll(() => upstream.close());

  const gateway = (publicKey: string) =>
    buildGateway({
      logger,
      config: configSchema.parse({
        JWT_PUBLIC_KEY: publicKey,
        ...Object.fromEntries(['ACCOUNTS', 'COMMUNITY', 'HOUSES', 'RECORDS', 'NOTIFICATIONS'].map((name) => [`${name}_URLS`, upstream.url])),
      }),
    }).handle;

  it('serves the accepted public keys at /.well-known/jwks.json, each named by the kid tokens carry', async () => {
    const res = await request(gateway(jwksOf(oldKeys.publicKey, newKeys.publicKey)))
      .get('/.well-known/jwks.json')
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const { keys } = JSON.parse(res.text) as { keys: Array<Record<string, string>> };
    expect(keys.map((key) => key.kid)).toEqual([signingKeyId(oldKeys.privateKey), signingKeyId(newKeys.privateKey)]);
    expect(keys.every((key) => key.d === undefined && key.kty === 'EC' && key.alg === 'ES256')).toBe(true);
    // A single PEM is published as a set of one.
    const single = await request(gateway(oldKeys.publicKey)).get('/.well-known/jwks.json').expect(200);
    expect((JSON.parse(single.text) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid)).toEqual([signingKeyId(oldKeys.privateKey)]);
  });

  it('forwards tokens of every key in the set and refuses those of a dropped key (J0001)', async () => {
    const bearer = (privateKey: string) => `Bearer ${signAccessToken(claims, privateKey)}`;
    const both = gateway(jwksOf(oldKeys.publicKey, newKeys.publicKey));
    await request(both).get('/api/v1/boards').set('authorization', bearer(oldKeys.privateKey)).expect(200);
    await request(both).get('/api/v1/boards').set('authorization', bearer(newKeys.privateKey)).expect(200);
    const newOnly = gateway(jwksOf(newKeys.publicKey));
    const refused = await request(newOnly).get('/api/v1/boards').set('authorization', bearer(oldKeys.privateKey)).expect(401);
    expect(refused.body).toEqual({ code: 'J0001', message: '잘못된 JWT 서명입니다.' });
    await request(newOnly).get('/api/v1/boards').set('authorization', bearer(newKeys.privateKey)).expect(200);
  });
});
