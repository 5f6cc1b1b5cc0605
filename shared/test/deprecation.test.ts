import express from 'express';
import request from 'supertest';
import { announceDeprecation } from '../src';

describe('announceDeprecation', () => {
  it('sends Deprecation, Sunset and the successor link on the deprecated route only', async () => {
    const app = express();
    const notice = { since: new Date('2026-12-01T00:00:00Z'), sunset: new Date('2027-06-01T00:00:00Z'), successor: '/api/v2/houses' };
    app.get('/api/v1/houses', announceDeprecation(notice), (_req, res) => res.json({ code: 'SUCCESS' }));
    app.get('/api/v1/boards', (_req, res) => res.json({ code: 'SUCCESS' }));

    const old = await request(app).get('/api/v1/houses').expect(200);
    expect(old.headers.deprecation).toBe('@1796083200');
    expect(old.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect(old.headers.link).toBe('</api/v2/houses>; rel="successor-version"');
    const other = await request(app).get('/api/v1/boards').expect(200);
    expect(other.headers.deprecation).toBeUndefined();
    expect(other.headers.sunset).toBeUndefined();
  });

  it('refuses a sunset that does not come after the deprecation', () => {
    expect(() => announceDeprecation({ since: new Date('2027-01-01'), sunset: new Date('2026-01-01') })).toThrow(/sunset/);
  });
});
