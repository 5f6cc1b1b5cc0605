import { applyUserSnapshot, createLogger, type UserType } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { bearer, connectTestDb, dropTestDb, isolatedNames, testEnv, userSnapshot } from '../../../test/support';
import { buildApp } from '../src/app';
import { ensureIndexes, houseModels, type HouseModels } from '../src/models';

/** One app + database per test file. */
export interface Harness {
  app: Express;
  connection: Connection;
  models: HouseModels;
  close(): Promise<void>;
}

export async function startHarness(label: string): Promise<Harness> {
  const names = isolatedNames(label);
  const connection = await connectTestDb(names.db);
  const models = houseModels(connection);
  await ensureIndexes(models);
  const app = buildApp({ connection, logger: createLogger('test', 'silent'), publicKey: testEnv().publicKey });
  return {
    app,
    connection,
    models,
    close: () => dropTestDb(connection),
  };
}

export interface Person {
  id: number;
  nickName: string;
  userType: UserType;
  admin?: boolean;
  token: string;
}

let nextPersonId = 1_000;

/** A user known to the local projection (as if accounts had published its snapshot) with a token. */
export async function person(h: Harness, nickName: string, userType: UserType = 'NONE', version = 1): Promise<Person> {
  const id = nextPersonId++;
  const admin = userType === 'WEB' || userType === 'SERVER';
  await applyUserSnapshot(h.models.users, userSnapshot(id, nickName, { userType, authority: admin ? 'ADMIN' : 'USER', version }));
  return { id, nickName, userType, admin, token: bearer({ userId: id, userType, authority: admin ? 'ADMIN' : 'USER' }) };
}

export async function renamePerson(h: Harness, p: Person, nickName: string, version: number): Promise<void> {
  await applyUserSnapshot(h.models.users, userSnapshot(p.id, nickName, { userType: p.userType, authority: p.admin ? 'ADMIN' : 'USER', version }));
}

export function validListing(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    rentalType: 'SALE',
    city: '강원특별자치도 평창군 대관령면',
    detail: '횡계리 123-4',
    zipCode: '25354',
    size: '84.5',
    purpose: '단독주택',
    floorNum: 1,
    contact: '01012345678',
    createdDate: '1998',
    price: 12000,
    monthlyPrice: 0,
    agentName: null,
    title: '평창 전원주택',
    code: '<p>햇살 좋은 집</p>',
    imageUrls: ['https://img.example.com/a.jpg', 'https://img.example.com/b.jpg'],
    tmpYn: false,
    recommendedTag: ['WANT_TO_FARM', 'WANT_TO_LOOK_A_GOOD_VIEW'],
    ...overrides,
  };
}

export function api(h: Harness) {
  const agent = request(h.app);
  const withAuth = (test: request.Test, who?: Person) => (who ? test.set('Authorization', who.token) : test);
  return {
    create: (who: Person, body: unknown) => withAuth(agent.post('/api/v1/houses'), who).send(body as object),
    update: (who: Person, id: number, body: unknown) => withAuth(agent.put(`/api/v1/houses/${id}`), who).send(body as object),
    remove: (who: Person, id: number) => withAuth(agent.delete(`/api/v1/houses/${id}`), who),
    detail: (id: number | string, who?: Person) => withAuth(agent.get(`/api/v1/houses/${id}`), who),
    userScrapDetail: (id: number, who?: Person) => withAuth(agent.get(`/api/v1/houses/user-scrap/${id}`), who),
    list: (query: string = '', who?: Person) => withAuth(agent.get(`/api/v1/houses${query ? `?${query}` : ''}`), who),
    drafts: (who: Person, query = '') => withAuth(agent.get(`/api/v1/houses/tmp-save${query ? `?${query}` : ''}`), who),
    scrapList: (who: Person, query = '') => withAuth(agent.get(`/api/v1/houses/scrap${query ? `?${query}` : ''}`), who),
    own: (who: Person, query = '') => withAuth(agent.get(`/api/v1/houses/agent${query ? `?${query}` : ''}`), who),
    waiting: (who: Person | undefined, query = '') => withAuth(agent.get(`/api/v1/houses/apply${query ? `?${query}` : ''}`), who),
    decide: (who: Person, id: number, body: unknown) => withAuth(agent.put(`/api/v1/houses/apply/${id}`), who).send(body as object),
    complete: (who: Person, id: number) => withAuth(agent.put(`/api/v1/houses/status/${id}`), who),
    report: (who: Person, id: number, body: unknown) => withAuth(agent.put(`/api/v1/houses/report/${id}`), who).send(body as object),
    scrap: (who: Person, id: number) => withAuth(agent.put(`/api/v1/scraps/${id}`), who),
    unscrap: (who: Person, id: number) => withAuth(agent.delete(`/api/v1/scraps/${id}`), who),
    raw: agent,
  };
}

/** Creates a listing and returns its id, asserting success. */
export async function createListing(h: Harness, who: Person, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await api(h).create(who, validListing(overrides));
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

export function expectError(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body.data).toBeUndefined();
  expect(typeof res.body.message).toBe('string');
}
