/**
 * The guards' codes are in the document: every operation of every service is called as the guards see callers
 * (nobody, a member, an administrator, a suspended member, a withdrawn account), with placeholder ids and an
 * empty body, and each answer must be one the service's own document lists for that operation (status, code and
 * envelope). A guard that answers a code its operations do not declare fails here, whatever the operation.
 */
import type { ApiDocument } from '@binzip/shared';
import type { Express } from 'express';
import request from 'supertest';
import { signedIn, signedInAdmin, signUp, startAccountsHarness, userBody } from '../../services/accounts/test/helpers';
import { buildApp as buildCommunity } from '../../services/community/src/service';
import { communityModels, initModels as initCommunity } from '../../services/community/src/models';
import { buildApp as buildHouses } from '../../services/houses/src/service';
import { housesModels, initModels as initHouses } from '../../services/houses/src/models';
import { buildApp as buildNotifications } from '../../services/notifications/src/service';
import { initModels as initNotifications, notificationsModels } from '../../services/notifications/src/models';
import { buildApp as buildRecords } from '../../services/records/src/service';
import { initModels as initRecords, recordsModels } from '../../services/records/src/models';
import { SERVICE_DOCUMENTS } from '../../scripts/lib/openapi';
import { ApiContract } from '../support/contract';
import { addAdmin, addMember, startServiceHarness, updatePerson, type ServiceRecipe } from '../support/service';

jest.setTimeout(120_000);

interface Callers {
  anonymous: undefined;
  member: string;
  admin: string;
  suspended: string;
  withdrawn: string;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** Calls every documented operation as each caller and returns what no document entry allows. */
async function undocumentedAnswers(app: Express, document: ApiDocument, callers: Callers): Promise<string[]> {
  const contract = await ApiContract.create(document);
  const problems: string[] = [];
  // Signing out revokes the caller's session, so it is called last.
  const paths = Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>).sort(
    ([a], [b]) => Number(a.endsWith('/logout')) - Number(b.endsWith('/logout')),
  );
  for (const [template, item] of paths) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      // Uploads answer from their own parser; the pictures tests cover them.
      const multipart = JSON.stringify(item[method]).includes('multipart/form-data');
      if (multipart) continue;
      const path = template.replace(/\{\w+\}/g, '1');
      for (const [who, token] of Object.entries(callers)) {
        if (method === 'get' && (who === 'suspended' || who === 'withdrawn')) continue;
        let call = request(app)[method](path);
        if (token) call = call.set('Authorization', token);
        const res = method === 'get' || method === 'delete' ? await call : await call.send({});
        try {
          if (res.status >= 500) throw new Error('a fault');
          contract.check({ method, path, status: res.status, body: res.body });
        } catch (err) {
          problems.push(`${method.toUpperCase()} ${template} as ${who}: ${res.status} ${JSON.stringify(res.body)}: ${(err as Error).message}`);
        }
      }
    }
  }
  return problems;
}

async function projectedService<M>(label: string, recipe: ServiceRecipe<M>, document: () => ApiDocument): Promise<string[]> {
  const h = await startServiceHarness(label, recipe);
  try {
    const member = await addMember(h.connection, '회원');
    const admin = await addAdmin(h.connection, '관리자');
    const suspended = await addMember(h.connection, '정지회원');
    await updatePerson(h.connection, suspended, { status: 'SUSPENDED' });
    const withdrawn = await addMember(h.connection, '탈퇴회원');
    await updatePerson(h.connection, withdrawn, { status: 'WITHDRAWN' });
    return await undocumentedAnswers(h.app, document(), {
      anonymous: undefined,
      member: member.token,
      admin: admin.token,
      suspended: suspended.token,
      withdrawn: withdrawn.token,
    });
  } finally {
    await h.close();
  }
}

test('notifications: every guard answer is documented', async () => {
  expect(
    await projectedService(
      'guardsnotif',
      { models: notificationsModels, initModels: initNotifications, buildApp: buildNotifications },
      SERVICE_DOCUMENTS.notifications,
    ),
  ).toEqual([]);
});

test('community: every guard answer is documented', async () => {
  expect(
    await projectedService('guardscomm', { models: communityModels, initModels: initCommunity, buildApp: buildCommunity }, SERVICE_DOCUMENTS.community),
  ).toEqual([]);
});

test('houses: every guard answer is documented', async () => {
  expect(await projectedService('guardshouses', { models: housesModels, initModels: initHouses, buildApp: buildHouses }, SERVICE_DOCUMENTS.houses)).toEqual([]);
});

test('records: every guard answer is documented', async () => {
  expect(
    await projectedService('guardsrecords', { models: recordsModels, initModels: initRecords, buildApp: buildRecords }, SERVICE_DOCUMENTS.records),
  ).toEqual([]);
});

test('accounts: every guard answer is documented', async () => {
  const h = await startAccountsHarness('guardsaccounts');
  try {
    const signIn = async (n: string) => {
      const body = userBody({ userName: `guard${n}`, nick_name: `가드${n}`, phone_num: `0107777${n}`, email: `guard${n}@example.com` });
      await signUp(h.app, body);
      return signedIn(h.app, body);
    };
    const member = await signIn('0001');
    const suspended = await signIn('0002');
    const withdrawn = await signIn('0003');
    await h.models.users.updateOne({ userName: 'guard0002' }, { $set: { status: 'SUSPENDED' } }).exec();
    await h.models.users.updateOne({ userName: 'guard0003' }, { $set: { status: 'WITHDRAWN' } }).exec();
    const admin = await signedInAdmin(h);
    expect(
      await undocumentedAnswers(h.app, SERVICE_DOCUMENTS.accounts(), {
        anonymous: undefined,
        member: member.bearer,
        admin: admin.bearer,
        suspended: suspended.bearer,
        withdrawn: withdrawn.bearer,
      }),
    ).toEqual([]);
  } finally {
    await h.close();
  }
});
