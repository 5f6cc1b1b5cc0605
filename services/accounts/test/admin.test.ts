import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { EventBus, consume, createLogger, userSnapshots, type UserSnapshotV1 } from '@binzip/shared';
import { connectTestDb, dropTestDb, eventually, isolatedNames, testEnv } from '../../../test/support';
import { bootstrapAdministrators, createAdministrator } from '../src/domain/sign-up';
import { accountsModels } from '../src/models';
import { signedIn, startAccountsHarness, userBody, type AccountsHarness } from './helpers';
import request from 'supertest';

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '..', '..', '..');

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctadmin');
});
afterAll(async () => h.close());

const admin = (n: string, overrides: Record<string, unknown> = {}) => ({
  userName: `admin_${n}`,
  password: 'Adm1nPass!',
  nick_name: `관리자${n}`,
  phone_num: `0105555${n.padStart(4, '0')}`,
  email: `admin${n}@example.com`,
  userType: 'WEB',
  ...overrides,
});

describe('createAdministrator', () => {
  it('creates an ADMIN of the given team type who can sign in; sign-up cannot', async () => {
    const created = await createAdministrator(h.ctx, admin('1', { userType: 'SERVER' }));
    const stored = await h.ctx.models.users.findById(created.id).lean().exec();
    expect(stored).toMatchObject({ authority: 'ADMIN', userType: 'SERVER', status: 'ACTIVE', version: 1 });
    expect(stored?.pendingEvents).toHaveLength(1);
    const { bearer } = await signedIn(h.app, { userName: 'admin_1', password: 'Adm1nPass!' });
    const profile = (await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data;
    expect(profile).toMatchObject({ authority: 'ADMIN', userType: 'SERVER', age: null, agentCode: null });
    const viaSignUp = await request(h.app)
      .post('/api/v1/users/sign-up')
      .send({ ...userBody(), userType: 'WEB' });
    expect(viaSignUp.status).toBe(400);
    expect(await h.ctx.models.users.countDocuments({ authority: 'ADMIN' })).toBe(1);
  });

  it('applies the sign-up formats and duplicate rules', async () => {
    await createAdministrator(h.ctx, admin('2'));
    await expect(createAdministrator(h.ctx, admin('3', { password: 'weak' }))).rejects.toMatchObject({
      code: 'C0002',
      message: '비밀번호 형식에 맞지 않습니다.',
    });
    await expect(createAdministrator(h.ctx, admin('3', { userType: 'AGENT' }))).rejects.toMatchObject({ code: 'C0002' });
    await expect(createAdministrator(h.ctx, admin('3', { userName: 'admin_2' }))).rejects.toMatchObject({ code: 'U0007' });
    await expect(createAdministrator(h.ctx, admin('3', { nick_name: '관리자2' }))).rejects.toMatchObject({ code: 'U0005' });
    await expect(createAdministrator(h.ctx, admin('3', { phone_num: '01055550002' }))).rejects.toMatchObject({ code: 'U0000' });
    await expect(createAdministrator(h.ctx, admin('3', { email: 'admin2@example.com' }))).rejects.toMatchObject({ code: 'U0010' });
    expect(await h.ctx.models.users.countDocuments({ authority: 'ADMIN' })).toBe(2);
  });

  it('bootstraps idempotently: existing userNames are skipped', async () => {
    const seeds = [admin('10'), admin('11', { userType: 'SERVER' })];
    const first = await bootstrapAdministrators(h.ctx, seeds);
    expect(first).toHaveLength(2);
    expect(await bootstrapAdministrators(h.ctx, seeds)).toEqual([]);
    expect(await h.ctx.models.users.countDocuments({ userName: { $in: ['admin_10', 'admin_11'] } })).toBe(2);
  });
});

describe('scripts/admin-create.ts', () => {
  const names = isolatedNames('acctcli');
  const env = {
    ...process.env,
    MONGODB_URI: testEnv().mongoUri,
    MONGODB_DB: names.db,
    NATS_URL: testEnv().natsUrl,
    NATS_PREFIX: names.natsPrefix,
    BCRYPT_COST: '4',
  };
  const args = [
    '--userName',
    'cliadmin1',
    '--password',
    'Passw0rd!',
    '--nick_name',
    '관리자',
    '--phone_num',
    '01012345678',
    '--email',
    'a@b.co',
    '--type',
    'WEB',
  ];
  const cli = (argv: string[]) =>
    run(path.join(REPO, 'node_modules', '.bin', 'tsx'), [path.join(REPO, 'scripts', 'admin-create.ts'), ...argv], { cwd: REPO, env, timeout: 60_000 });
  let bus: EventBus;

  beforeAll(async () => {
    bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'cli-test', logger: createLogger('cli-test', 'silent') });
  });
  afterAll(async () => {
    await bus.deleteStreams();
    await bus.close();
    await dropTestDb(await connectTestDb(names.db));
  });

  it('creates the administrator, publishes its snapshot, prints one JSON line; a duplicate fails', async () => {
    const { stdout } = await cli(args);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0]) as { id: number; userName: string };
    expect(printed).toEqual({ id: expect.any(Number), userName: 'cliadmin1' });

    const connection = await connectTestDb(names.db);
    try {
      const stored = await accountsModels(connection).users.findById(printed.id).lean().exec();
      expect(stored).toMatchObject({ authority: 'ADMIN', userType: 'WEB', pendingEvents: [] });
    } finally {
      await connection.close();
    }

    const events: UserSnapshotV1[] = [];
    const consumer = await bus.consume(consume(userSnapshots, { durable: 'cli-sink', handle: async (e) => void events.push(e) }));
    try {
      await eventually(() => events.some((e) => e.id === printed.id));
      expect(events.find((e) => e.id === printed.id)).toMatchObject({ userName: 'cliadmin1', authority: 'ADMIN', userType: 'WEB' });
    } finally {
      await consumer.stop();
    }

    const duplicate = await cli(args).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(duplicate?.code).toBe(1);
    expect(duplicate?.stderr).toContain('U0007');
  }, 90_000);

  it('refuses a missing option and a bad type without touching the store', async () => {
    const missing = await cli(args.slice(0, -2)).catch((err: { code: number; stderr: string }) => err);
    expect(missing).toMatchObject({ code: 2 });
    const badType = await cli([...args.slice(0, -1), 'ROOT'].map((a) => (a === 'cliadmin1' ? 'cliadmin2' : a))).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(badType).toMatchObject({ code: 1 });
    expect((badType as { stderr: string }).stderr).toContain('C0002');
  }, 90_000);

  it('prints its usage for --help (exit 0) and with an unknown option (exit 2)', async () => {
    const help = await cli(['--help']);
    expect(help.stdout).toMatch(/^usage: npm run admin:create -- --userName/);
    const unknown = await cli([...args, '--admin', 'yes']).catch((err: { code: number; stderr: string }) => err);
    expect(unknown).toMatchObject({ code: 2 });
    expect((unknown as { stderr: string }).stderr).toContain("Unknown option '--admin'");
    expect((unknown as { stderr: string }).stderr).toContain('usage: npm run admin:create');
  }, 90_000);
});
