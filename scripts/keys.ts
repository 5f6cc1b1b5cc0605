/**
 * Access-token keys as `.env` lines (docker compose, or any deployment):
 *   npm run keys                                      a fresh ES256 pair (JWT_PUBLIC_KEY is one PEM), REVOCATION_FEED_TOKEN
 *                                                     and Web Push's VAPID key pair (VAPID_SUBJECT to be set to the operator's contact)
 *   npm run keys -- --keep="$JWT_PUBLIC_KEY"          a fresh pair; JWT_PUBLIC_KEY is a JWKS of the kept keys and the new one
 *   npm run keys -- --from="$JWT_PUBLIC_KEY" --drop <kid>   only JWT_PUBLIC_KEY, without that key
 * `--out <file>` appends the lines to that file (created readable by its owner only) instead of printing them:
 * `npm run keys -- --out .env` (`npm run keys >> .env` would also append npm's banner; `npm run -s keys >> .env`
 * does not). The rotation runbook using them is in docs/operations.md ("Key rotation").
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import webpush from 'web-push';
import { generateDevKeyPair, signingKeyId, verificationKeys, type JsonWebKeySet } from '../shared/src';

const { values } = parseArgs({
  options: { keep: { type: 'string' }, from: { type: 'string' }, drop: { type: 'string', multiple: true }, out: { type: 'string' } },
});
const lines: string[] = [];
const emit = (line: string) => lines.push(line);

const oneLine = (pem: string) => JSON.stringify(pem.trim()).slice(1, -1);
const jwksLine = (jwks: JsonWebKeySet) => `JWT_PUBLIC_KEY='${JSON.stringify(jwks)}'`;
const kids = (jwks: JsonWebKeySet) => jwks.keys.map((key) => key.kid).join(', ');

if (values.from !== undefined) {
  const dropped = new Set(values.drop ?? []);
  const { jwks } = verificationKeys(values.from);
  const unknown = [...dropped].filter((kid) => !jwks.keys.some((key) => key.kid === kid));
  if (unknown.length > 0) throw new Error(`not in the set: ${unknown.join(', ')} (it holds ${kids(jwks)})`);
  const kept = { keys: jwks.keys.filter((key) => !dropped.has(key.kid)) };
  if (kept.keys.length === 0) throw new Error('that would leave no key at all');
  emit(`# accepted keys: ${kids(kept)}`);
  emit(jwksLine(kept));
} else {
  const { publicKey, privateKey } = generateDevKeyPair();
  const kid = signingKeyId(privateKey);
  if (values.keep === undefined) {
    emit(`# kid ${kid}`);
    emit(`JWT_PUBLIC_KEY="${oneLine(publicKey)}"`);
  } else {
    const set = { keys: [...verificationKeys(values.keep).jwks.keys, ...verificationKeys(publicKey).jwks.keys] };
    emit(`# accepted keys: ${kids(set)}; the new signing key is ${kid}`);
    emit(jwksLine(set));
  }
  emit(`JWT_PRIVATE_KEY="${oneLine(privateKey)}"`);
  // The first key pair of a deployment also gets the revocation feed's shared secret (docker-compose.yml).
  if (values.keep === undefined) emit(`REVOCATION_FEED_TOKEN="${randomBytes(24).toString('base64url')}"`);
  // And Web Push's key pair, once too: browsers subscribed with the public key, a new one would orphan every
  // subscription (docs/operations.md). The push services want a real contact in VAPID_SUBJECT.
  if (values.keep === undefined) {
    const vapid = webpush.generateVAPIDKeys();
    emit(`VAPID_PUBLIC_KEY="${vapid.publicKey}"`);
    emit(`VAPID_PRIVATE_KEY="${vapid.privateKey}"`);
    emit('# VAPID_SUBJECT: the mailto: or https: address push services may write to about this server');
    emit('VAPID_SUBJECT="mailto:operator@example.com"');
  }
}

if (values.out) {
  appendFileSync(values.out, `${lines.join('\n')}\n`, { mode: 0o600 });
  console.error(`appended ${lines.filter((line) => !line.startsWith('#')).length} settings to ${values.out}`);
} else {
  console.log(lines.join('\n'));
}
