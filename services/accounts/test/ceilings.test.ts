import { defaultCeilingSettings } from '@binzip/shared';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { agentBody, startAccountsHarness, userBody, type AccountsHarness } from './helpers';

/** Small ceilings, so a test reaches them in a few requests; the defaults are in shared/src/config.ts. */
const ceilings = { ...defaultCeilingSettings(), CEILING_SIGN_UPS_PER_ADDRESS: 3, CEILING_CODE_SENDS_PER_ADDRESS: 4 };

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctceilings', { ceilings });
});
afterAll(async () => h.close());

/** The gateway names the client in X-Forwarded-For; accounts trusts it from loopback (where supertest connects). */
const from = (address: string) => ({ 'X-Forwarded-For': address });

describe('per-address ceilings on sign-up and code sends (429 C0004 with Retry-After)', () => {
  it('lets one address sign up the ceiling (members and agents together), then refuses it while others go on', async () => {
    const answers = [];
    for (const body of [userBody(), agentBody(), userBody()]) {
      answers.push((await request(h.app).post('/api/v1/users/sign-up').set(from('203.0.113.10')).send(body)).status);
    }
    expect(answers).not.toContain(429);
    for (const [path, body] of [
      ['/api/v1/users/sign-up', userBody()],
      ['/api/v1/agents/sign-up', agentBody()],
    ] as const) {
      const refused = await request(h.app).post(path).set(from('203.0.113.10')).send(body);
      expectError(refused, 429, 'C0004');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(ceilings.CEILING_SIGN_UPS_WINDOW_SECONDS);
      expect(await h.ctx.models.users.exists({ userName: body.userName })).toBeNull();
    }
    const other = await request(h.app).post('/api/v1/users/sign-up').set(from('203.0.113.11')).send(userBody());
    expect(other.status).not.toBe(429);
  });

  it('counts codes sent to different numbers and addresses from one client address together', async () => {
    const sends = [
      ['/api/v1/users/send/sms', { phone_num: '01011110001' }],
      ['/api/v1/users/send/sms', { phone_num: '01011110002' }],
      ['/api/v1/users/send/email', { email: 'a1@example.com' }],
      ['/api/v1/users/send/email', { email: 'a2@example.com' }],
    ] as const;
    const answers = await Promise.all(sends.map(([path, body]) => request(h.app).post(path).set(from('198.51.100.20')).send(body)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    const refused = await request(h.app).post('/api/v1/users/send/sms').set(from('198.51.100.20')).send({ phone_num: '01011110003' });
    expectError(refused, 429, 'C0004');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(h.sms.lastTo('01011110003')).toBeUndefined();
    const elsewhere = await request(h.app).post('/api/v1/users/send/sms').set(from('198.51.100.21')).send({ phone_num: '01011110003' });
    expect(elsewhere.status).toBe(200);
  });

  it('holds concurrent sends to the ceiling exactly', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(h.app)
          .post('/api/v1/users/send/sms')
          .set(from('192.0.2.30'))
          .send({ phone_num: `010222200${String(i).padStart(2, '0')}` }),
      ),
    );
    expect(answers.filter((res) => res.status === 200)).toHaveLength(ceilings.CEILING_CODE_SENDS_PER_ADDRESS);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(12 - ceilings.CEILING_CODE_SENDS_PER_ADDRESS);
  });
});
