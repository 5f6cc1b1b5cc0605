/**
 * Phone numbers as people type them (issue 33): wherever accounts takes a phone number, `010-1234-5678` and
 * `010 1234 5678` are read as `01012345678`, stored and answered digits-only; letters or too few digits stay
 * the spec's phone format error and nothing is stored.
 */
import { FormatMessages } from '@binzip/shared';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { agentBody, lastCode, signedIn, startAccountsHarness, userBody, type AccountsHarness } from './helpers';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('accttypedphones');
});
afterAll(async () => h.close());

const post = (path: string, body: object) => request(h.app).post(path).send(body);
let seq = 0;
/** A fresh mobile number: its digits and two typed forms of it. */
const freshPhone = () => {
  const tail = `${String(process.pid % 1000).padStart(3, '0')}${String(++seq).padStart(5, '0')}`;
  const digits = `010${tail}`;
  return { digits, dashed: `010-${tail.slice(0, 4)}-${tail.slice(4)}`, spaced: ` 010 ${tail.slice(0, 4)} ${tail.slice(4)} ` };
};

/** Sends and checks a code for a typed phone number, as the clients do before signing up or changing it. */
async function verifyTyped(typed: string, digits: string): Promise<void> {
  await post('/api/v1/users/send/sms', { phone_num: typed }).expect(200);
  const code = lastCode(h.sms, digits);
  expect((await post('/api/v1/users/check/sms', { phone_num: typed, code })).body.data).toBe(true);
}

test('code sends and checks read a typed number as its digits: the SMS goes to the digits, either typed form checks it', async () => {
  const phone = freshPhone();
  await post('/api/v1/users/send/sms', { phone_num: phone.spaced }).expect(200);
  expect(h.sms.lastTo(phone.spaced)).toBeUndefined();
  const code = lastCode(h.sms, phone.digits);
  expect(await h.ctx.models.verifications.exists({ _id: `sms:${phone.digits}` })).not.toBeNull();
  expect((await post('/api/v1/users/check/sms', { phone_num: phone.dashed, code })).body.data).toBe(true);
});

test('a member signs up with a dashed number: stored and answered digits-only', async () => {
  const phone = freshPhone();
  const body = userBody({ phone_num: phone.dashed });
  await verifyTyped(phone.dashed, phone.digits);
  await post('/api/v1/users/send/email', { email: body.email }).expect(200);
  await post('/api/v1/users/check/email', { email: body.email, code: lastCode(h.mail, String(body.email)) }).expect(200);
  await post('/api/v1/users/sign-up', body).expect(200);
  const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
  expect(stored?.phoneNum).toBe(phone.digits);
  const { bearer } = await signedIn(h.app, body);
  expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.phone_num).toBe(phone.digits);
  // The same number typed another way is the same number: already registered.
  expectError(await post('/api/v1/users/send/sms', { phone_num: phone.spaced }), 400, 'U0000');
});

test('an agent signs up with a spaced number and a dashed office number: both stored digits-only', async () => {
  const phone = freshPhone();
  const body = agentBody({ phone_num: phone.spaced, company_phone_num: '061-234-5678' });
  await verifyTyped(phone.spaced, phone.digits);
  await post('/api/v1/agents/sign-up', body).expect(200);
  const { bearer } = await signedIn(h.app, body);
  expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data).toMatchObject({
    phone_num: phone.digits,
    companyPhoneNum: '0612345678',
  });
});

test('a phone change (update/phone and the profile form) takes a typed number and stores its digits', async () => {
  const { bearer, body } = await signedIn(h.app);
  const first = freshPhone();
  await verifyTyped(first.dashed, first.digits);
  await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: first.dashed }).expect(200);
  expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.phone_num).toBe(first.digits);

  const second = freshPhone();
  await verifyTyped(second.spaced, second.digits);
  await request(h.app).put('/api/v1/users').set('Authorization', bearer).send({ password: body.password, phone_num: second.spaced }).expect(200);
  expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.phone_num).toBe(second.digits);
});

test.each([
  ['letters', '010-12ab-5678'],
  ['too few digits', '010-123-45'],
  ['a doubled hyphen', '010--1234-5678'],
  ['other signs', '(010)1234-5678'],
  ['a dot', '010.1234.5678'],
  ['too long', '010-1234-5678-9999-0000'],
])('a phone number with %s is the spec format error everywhere, and nothing is sent or stored', async (_what, typed) => {
  expectError(await post('/api/v1/users/send/sms', { phone_num: typed }), 400, 'C0002', FormatMessages.phone);
  expectError(await post('/api/v1/users/check/sms', { phone_num: typed, code: '123456' }), 400, 'C0002', FormatMessages.phone);
  const body = userBody({ phone_num: typed });
  expectError(await post('/api/v1/users/sign-up', body), 400, 'C0002', FormatMessages.phone);
  expect(await h.ctx.models.users.exists({ userName: body.userName })).toBeNull();
  expectError(await post('/api/v1/agents/sign-up', agentBody({ company_phone_num: typed })), 400, 'C0002', '사무소 전화번호 값이 올바르지 않습니다.');
  const { bearer } = await signedIn(h.app);
  expectError(
    await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: typed }),
    400,
    'C0002',
    FormatMessages.phone,
  );
});
