/**
 * Creates an administrator (authority ADMIN, userType WEB or SERVER); sign-up never does.
 *
 *   npx tsx scripts/admin-create.ts --userName admin1 --password 'Passw0rd!' --nick_name 관리자 \
 *     --phone_num 01012345678 --email a@b.co --type WEB
 *
 * Env: MONGODB_URI, MONGODB_DB (default accounts), NATS_URL, NATS_PREFIX (default: the one `npm start` keeps in
 * its data folder), BCRYPT_COST (default 10).
 * Waits until the user's snapshot event is on NATS, then prints one JSON line {"id":..,"userName":".."}
 * and exits 0; prints a message to stderr and exits non-zero on any failure (bad value, duplicate, stores down).
 */
import { parseArgs } from 'node:util';
import { accountsStream, EventBus, OutboxRelay, connectMongo, createLogger, isAppError, serviceContext } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { PasswordHasher } from '../services/accounts/src/domain/passwords';
import { createAdministrator } from '../services/accounts/src/domain/sign-up';
import { accountsModels, initModels } from '../services/accounts/src/models';
import { devDataDir, devNatsPrefix } from './lib/system';

const STORE_TIMEOUT_MS = 15_000;
const PUBLISH_TIMEOUT_MS = 30_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS).unref()),
  ]);
}

const USAGE = `usage: npm run admin:create -- --userName <name> --password <password> --nick_name <nick> \\
         --phone_num <01012345678> --email <address> --type <WEB|SERVER>
Creates an administrator in the accounts database (MONGODB_URI, MONGODB_DB) and publishes it on NATS (NATS_URL).`;

const OPTIONS = {
  userName: { type: 'string' },
  password: { type: 'string' },
  nick_name: { type: 'string' },
  phone_num: { type: 'string' },
  email: { type: 'string' },
  type: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function main(): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];
  try {
    ({ values } = parseArgs({ options: OPTIONS, strict: true }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const missing = ['userName', 'password', 'nick_name', 'phone_num', 'email', 'type'].filter((k) => values[k as keyof typeof values] === undefined);
  if (missing.length > 0) {
    console.error(`missing option(s): ${missing.map((m) => `--${m}`).join(' ')}\n${USAGE}`);
    return 2;
  }
  const cost = Number(process.env.BCRYPT_COST ?? 10);
  if (!Number.isInteger(cost) || cost < 4 || cost > 15) {
    console.error('BCRYPT_COST must be an integer from 4 to 15');
    return 2;
  }
  const logger = createLogger('admin-create', 'silent');
  let connection: Connection | undefined;
  let bus: EventBus | undefined;
  try {
    connection = await withTimeout(connectMongo(process.env.MONGODB_URI || 'mongodb://127.0.0.1:27017', process.env.MONGODB_DB || 'accounts'), 'MongoDB');
    const models = accountsModels(connection);
    await initModels(models);
    bus = await withTimeout(
      EventBus.connect({
        url: process.env.NATS_URL || 'nats://127.0.0.1:4222',
        prefix: devNatsPrefix(devDataDir(), { create: false }),
        name: 'admin-create',
        logger,
      }),
      'NATS',
    );
    await bus.ensureStream(accountsStream);
    // The relay below publishes the event, so no kick is needed; the CLI has no keys or senders to give.
    const ctx = { ...serviceContext(models, { logger }), passwords: new PasswordHasher(cost, 1) };
    const admin = await createAdministrator(ctx, {
      userName: values.userName,
      password: values.password,
      nick_name: values.nick_name,
      phone_num: values.phone_num,
      email: values.email,
      userType: values.type,
    });
    const relay = new OutboxRelay({ bus, models: [models.users], logger });
    const deadline = Date.now() + PUBLISH_TIMEOUT_MS;
    for (;;) {
      await relay.flush();
      const stored = await models.users.findById(admin.id, { pendingEvents: 1 }).lean().exec();
      if ((stored?.pendingEvents.length ?? 0) === 0) break;
      if (Date.now() > deadline) {
        console.error(`administrator ${admin.id} was created but its event is not published yet; the accounts service will publish it`);
        return 3;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    process.stdout.write(`${JSON.stringify({ id: admin.id, userName: admin.userName })}\n`);
    return 0;
  } catch (err) {
    if (isAppError(err)) console.error(`${err.code}: ${err.message}`);
    else console.error(`failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await bus?.close().catch(() => undefined);
    await connection?.close().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
