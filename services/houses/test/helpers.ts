import request from 'supertest';
import type { ServiceHarness, ServiceRecipe, TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { housesModels, initModels, type HousesModels } from '../src/models';

/** How the tests build the houses service: `startServiceHarness('label', housesService)`. */
export const housesService: ServiceRecipe<HousesModels> = { models: housesModels, initModels, buildApp };

export type HousesHarness = ServiceHarness<HousesModels>;

/** A saved listing that passes every rule; `overrides` changes or removes (undefined) fields. */
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

/** The service's operations as supertest requests, each as `who` (or anonymous). */
export function api(h: HousesHarness) {
  const agent = request(h.app);
  const withAuth = (test: request.Test, who?: TestPerson) => (who ? test.set('Authorization', who.token) : test);
  return {
    create: (who: TestPerson, body: unknown) => withAuth(agent.post('/api/v1/houses'), who).send(body as object),
    update: (who: TestPerson, id: number, body: unknown) => withAuth(agent.put(`/api/v1/houses/${id}`), who).send(body as object),
    remove: (who: TestPerson, id: number) => withAuth(agent.delete(`/api/v1/houses/${id}`), who),
    detail: (id: number | string, who?: TestPerson) => withAuth(agent.get(`/api/v1/houses/${id}`), who),
    userScrapDetail: (id: number, who?: TestPerson) => withAuth(agent.get(`/api/v1/houses/user-scrap/${id}`), who),
    list: (query: string = '', who?: TestPerson) => withAuth(agent.get(`/api/v1/houses${query ? `?${query}` : ''}`), who),
    drafts: (who: TestPerson, query = '') => withAuth(agent.get(`/api/v1/houses/tmp-save${query ? `?${query}` : ''}`), who),
    scrapList: (who: TestPerson, query = '') => withAuth(agent.get(`/api/v1/houses/scrap${query ? `?${query}` : ''}`), who),
    own: (who: TestPerson, query = '') => withAuth(agent.get(`/api/v1/houses/agent${query ? `?${query}` : ''}`), who),
    waiting: (who: TestPerson | undefined, query = '') => withAuth(agent.get(`/api/v1/houses/apply${query ? `?${query}` : ''}`), who),
    decide: (who: TestPerson, id: number, body: unknown) => withAuth(agent.put(`/api/v1/houses/apply/${id}`), who).send(body as object),
    complete: (who: TestPerson, id: number) => withAuth(agent.put(`/api/v1/houses/status/${id}`), who),
    report: (who: TestPerson, id: number, body: unknown) => withAuth(agent.put(`/api/v1/houses/report/${id}`), who).send(body as object),
    scrap: (who: TestPerson, id: number) => withAuth(agent.put(`/api/v1/scraps/${id}`), who),
    unscrap: (who: TestPerson, id: number) => withAuth(agent.delete(`/api/v1/scraps/${id}`), who),
    raw: agent,
  };
}

/** Creates a listing and returns its id, asserting success. */
export async function createListing(h: HousesHarness, who: TestPerson, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await api(h).create(who, validListing(overrides));
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}
