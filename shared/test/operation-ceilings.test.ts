import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createLogger, errorHandler, mountOperations, operationsDocument, operationsOf, TooManyRequestsError, type AnyOperation } from '../src';

const operation = operationsOf<undefined>();
const sendCode = operation({
  method: 'post',
  path: '/codes',
  operationId: 'sendCode',
  summary: 'test',
  tags: ['test'],
  access: 'public',
  ceiling: 'code-sends',
  handle: () => 'sent',
});
const readCode = operation({ method: 'get', path: '/codes', operationId: 'readCode', summary: 'test', tags: ['test'], access: 'public', handle: () => 'read' });

function appWith(operations: AnyOperation<undefined>[], ceilings: Record<string, RequestHandler>) {
  const app = express();
  mountOperations(app, operations, undefined, { ceilings });
  app.use(errorHandler(createLogger('test', 'silent')));
  return app;
}

describe("an operation's ceiling", () => {
  it('runs the named guard before the handler, on that operation only', async () => {
    let left = 1;
    const codeSends: RequestHandler = (_req, _res, next) => next(left-- > 0 ? undefined : new TooManyRequestsError(30));
    const app = appWith([sendCode, readCode], { 'code-sends': codeSends });
    expect((await request(app).post('/codes').expect(200)).body.data).toBe('sent');
    const refused = await request(app).post('/codes').expect(429);
    expect(refused.body.code).toBe('C0004');
    expect(refused.headers['retry-after']).toBe('30');
    await request(app).get('/codes').expect(200);
  });

  it('fails the mount when the app has no ceiling of that name (a typo must not go uncounted)', () => {
    expect(() => appWith([sendCode], {})).toThrow(/sendCode .*'code-sends'/);
  });

  it("puts the ceiling's 429 C0004 in the document, whatever the method", () => {
    const read = operation({
      method: 'get',
      path: '/limited',
      operationId: 'limitedRead',
      summary: 'test',
      tags: ['test'],
      access: 'public',
      ceiling: 'reads',
      handle: () => 1,
    });
    const document = operationsDocument([read], { title: 'test', version: '1' });
    const responses = (document.paths as Record<string, { get: { responses: Record<string, unknown> } }>)['/limited'].get.responses;
    expect(JSON.stringify(responses['429'])).toContain('C0004');
  });
});
