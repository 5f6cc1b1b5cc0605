import request from 'supertest';
import { z } from 'zod';
import {
  AppError,
  FormatMessages,
  createLogger,
  createServiceApp,
  generateDevKeyPair,
  handle,
  idParams,
  pageQuery,
  parseBody,
  parseParams,
  parseQuery,
  queryBoolean,
  queryEnum,
  requireAdmin,
  requireUser,
  signAccessToken,
  trustProxySetting,
} from '../src';

const keys = generateDevKeyPair();
const logger = createLogger('shared-test', 'silent');

const bodySchema = z.strictObject({
  nick_name: z.string().regex(/^[a-z]{1,5}$/, FormatMessages.nickName),
  age: z.number().int(),
  tags: z.array(z.enum(['A', 'B'])).max(3),
});

const app = createServiceApp({
  service: 'shared-test',
  logger,
  publicKey: keys.publicKey,
  routes: (a) => {
    a.post(
      '/echo',
      handle((req) => parseBody(req, bodySchema)),
    );
    a.get(
      '/items/:itemId',
      handle((req) => parseParams(req, idParams('itemId')).itemId),
    );
    a.get(
      '/page',
      handle((req) => parseQuery(req, z.object({ ...pageQuery(8), done: queryBoolean(), order: queryEnum(['RECENT', 'POPULAR']) }))),
    );
    a.get(
      '/nothing',
      handle(() => undefined),
    );
    a.get(
      '/mine',
      requireUser,
      handle((req) => req.auth),
    );
    a.get(
      '/admin',
      requireAdmin,
      handle(() => true),
    );
    a.get(
      '/boom',
      handle(() => {
        throw new Error('secret internals');
      }),
    );
    a.get(
      '/conflict',
      handle(() => {
        throw new AppError('P0000');
      }),
    );
  },
});

const token = (authority: 'USER' | 'ADMIN') =>
  `Bearer ${signAccessToken({ userId: 3, userName: 'u3', authority, userType: authority === 'ADMIN' ? 'WEB' : 'NONE' }, keys.privateKey)}`;

describe('createServiceApp', () => {
  it('wraps results in the success envelope and omits data when there is none', async () => {
    const res = await request(app)
      .post('/echo')
      .send({ nick_name: 'abc', age: 3, tags: ['A'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공', data: { nick_name: 'abc', age: 3, tags: ['A'] } });
    const empty = await request(app).get('/nothing');
    expect(empty.body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect('data' in empty.body).toBe(false);
  });

  it.each([
    ['a spec format message', { nick_name: 'ABC', age: 1, tags: [] }, '닉네임 형식에 맞지 않습니다.'],
    ['a missing field', { nick_name: 'abc', tags: [] }, 'age 값이 누락되었습니다.'],
    ['a wrong type', { nick_name: 'abc', age: 'x', tags: [] }, 'age 값이 올바르지 않습니다.'],
    ['an unknown enum name', { nick_name: 'abc', age: 1, tags: ['A', 'Z'] }, 'tags[1] 값이 올바르지 않습니다.'],
    ['an unknown field', { nick_name: 'abc', age: 1, tags: [], admin: true }, 'admin 필드는 허용되지 않습니다.'],
    ['a body that is not an object', [1, 2], '요청 본문 값이 올바르지 않습니다.'],
  ])('turns %s into C0002 naming the field', async (_label, body, message) => {
    const res = await request(app).post('/echo').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'C0002', message });
  });

  it('answers malformed JSON and oversized bodies with 4xx envelopes', async () => {
    const malformed = await request(app).post('/echo').set('content-type', 'application/json').send('{"nick_name": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('C0002');
    const huge = await request(app)
      .post('/echo')
      .send({ nick_name: 'x'.repeat(2_000_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('C0002');
  });

  it('parses path ids and paging queries strictly', async () => {
    expect((await request(app).get('/items/42')).body.data).toBe(42);
    for (const bad of ['0', '-1', 'abc', '1.5', '9'.repeat(20)]) {
      const res = await request(app).get(`/items/${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('itemId 값이 올바르지 않습니다.');
    }
    expect((await request(app).get('/page')).body.data).toEqual({ page: 0, size: 8 });
    expect((await request(app).get('/page?page=2&size=&done=true&order=POPULAR')).body.data).toEqual({ page: 2, size: 8, done: true, order: 'POPULAR' });
    expect((await request(app).get('/page?size=51')).body.data).toEqual({ page: 0, size: 50 });
    expect((await request(app).get('/page?size=-1')).status).toBe(400);
    expect((await request(app).get('/page?page=-1')).status).toBe(400);
    expect((await request(app).get('/page?order=OLDEST')).body).toEqual({ code: 'C0002', message: 'order 값이 올바르지 않습니다.' });
  });

  it('guards signed-in and admin routes with the J codes', async () => {
    expect((await request(app).get('/mine')).body).toEqual({ code: 'J0000', message: '권한 정보가 없는 토큰입니다.' });
    expect((await request(app).get('/mine')).status).toBe(401);
    const mine = await request(app).get('/mine').set('authorization', token('USER'));
    expect(mine.body.data).toEqual({ userId: 3, userName: 'u3', authority: 'USER', userType: 'NONE' });
    const denied = await request(app).get('/admin').set('authorization', token('USER'));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('J0006');
    expect((await request(app).get('/admin').set('authorization', token('ADMIN'))).body.data).toBe(true);
    const bad = await request(app).get('/nothing').set('authorization', 'Basic abc');
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('J0004');
  });

  it('renders AppErrors with their status and hides unexpected faults behind C0000', async () => {
    const conflict = await request(app).get('/conflict');
    expect(conflict.status).toBe(400);
    expect(conflict.body).toEqual({ code: 'P0000', message: '이미 좋아요를 한 게시글입니다.' });
    const boom = await request(app).get('/boom');
    expect(boom.status).toBe(500);
    expect(boom.body).toEqual({ code: 'C0000', message: '예기치 못한 오류가 발생했습니다.' });
    expect(JSON.stringify(boom.body)).not.toContain('secret');
  });

  it('answers unknown routes with 404 C0001 and echoes a request id', async () => {
    const res = await request(app).get('/nope').set('x-request-id', 'abc-123');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });
    expect(res.headers['x-request-id']).toBe('abc-123');
    const unsafe = await request(app).get('/nope').set('x-request-id', 'bad id with spaces');
    expect(unsafe.headers['x-request-id']).not.toBe('bad id with spaces');
  });
});

describe('describeIssue', () => {
  it('names the field for an enum of Korean labels instead of echoing the options', async () => {
    const { parseWith } = await import('../src');
    const labels = z.object({ age: z.enum(['20대', '30대']) });
    expect(() => parseWith(labels, { age: '10대' })).toThrow('age 값이 올바르지 않습니다.');
  });
});

describe('what real clients send', () => {
  const { formNumber, nullableFormNumber, bodyId, querySize, queryEnum: optionalEnum, parseWith } = jest.requireActual<typeof import('../src')>('../src');
  const body = z.strictObject({ price: formNumber(z.number().min(0).max(1000)), floorNum: nullableFormNumber(z.number().int().min(-20).max(300)), id: bodyId });
  const parse = (input: Record<string, unknown>) => parseWith(body, { price: 1, floorNum: 1, id: 1, ...input });

  it('reads a text that is exactly a decimal number as the number, and "" as null where null is accepted', () => {
    expect(parse({ price: '300', floorNum: '-2', id: '7' })).toEqual({ price: 300, floorNum: -2, id: 7 });
    expect(parse({ price: '45.5', floorNum: '' })).toEqual({ price: 45.5, floorNum: null, id: 1 });
    expect(parse({ floorNum: null })).toMatchObject({ floorNum: null });
  });

  it.each([
    [{ price: 'abc' }, 'price 값이 올바르지 않습니다.'],
    [{ price: '1e3' }, 'price 값이 올바르지 않습니다.'],
    [{ price: ' 12' }, 'price 값이 올바르지 않습니다.'],
    [{ price: '' }, 'price 값이 올바르지 않습니다.'],
    [{ price: true }, 'price 값이 올바르지 않습니다.'],
    [{ price: '1001' }, 'price 값이 올바르지 않습니다.'],
    [{ price: undefined }, 'price 값이 누락되었습니다.'],
    [{ floorNum: '1.5' }, 'floorNum 값이 올바르지 않습니다.'],
    [{ id: '0' }, 'id 값이 올바르지 않습니다.'],
    [{ id: '' }, 'id 값이 올바르지 않습니다.'],
  ])('still refuses %j', (input, message) => {
    expect(() => parse(input)).toThrow(message);
  });

  it('clamps a size above its maximum and refuses one below 1 or not whole', () => {
    const query = z.object({ size: querySize(8, 50), kind: optionalEnum(['A', 'B']) });
    expect(parseWith(query, {})).toEqual({ size: 8 });
    expect(parseWith(query, { size: '100' })).toEqual({ size: 50 });
    expect(parseWith(query, { size: '50' })).toEqual({ size: 50 });
    for (const size of ['0', '-1', 'abc', '1.5', '1e2']) expect(() => parseWith(query, { size })).toThrow('size 값이 올바르지 않습니다.');
  });

  it('reads an optional query value sent as the text null or as empty as absent', () => {
    const query = z.object({ size: querySize(8, 50), kind: optionalEnum(['A', 'B']) });
    expect(parseWith(query, { size: 'null', kind: 'null' })).toEqual({ size: 8 });
    expect(parseWith(query, { size: '', kind: '' })).toEqual({ size: 8 });
  });
});

describe('field labels', () => {
  it('names a refused field by its Korean label, keeps the spec format messages, and logs the code name with the request id', async () => {
    const { PassThrough } = await import('node:stream');
    const winston = await import('winston');
    const lines: string[] = [];
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const logger = createLogger('labels-test', 'info');
    logger.clear().add(new winston.transports.Stream({ stream: sink }));
    const labelled = createServiceApp({
      service: 'labels-test',
      logger,
      publicKey: keys.publicKey,
      fieldLabels: { nick_name: '닉네임', age: '나이', tags: '태그' },
      routes: (a) =>
        a.post(
          '/echo',
          handle((req) => parseBody(req, bodySchema)),
        ),
    });
    const send = (body: object) => request(labelled).post('/echo').set('x-request-id', 'label-req-1').send(body);
    expect((await send({ nick_name: 'ab', tags: [] })).body).toEqual({ code: 'C0002', message: '나이 값이 누락되었습니다.' });
    expect((await send({ nick_name: 'ab', age: 1, tags: ['C'] })).body).toEqual({ code: 'C0002', message: '태그 값이 올바르지 않습니다.' });
    expect((await send({ nick_name: 'ABC', age: 1, tags: [] })).body.message).toBe(FormatMessages.nickName);
    expect((await send({ nick_name: 'ab', age: 1, tags: [], extra: 1 })).body.message).toBe('extra 필드는 허용되지 않습니다.');
    const refused = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.message === 'request value refused');
    expect(refused.slice(0, 2)).toEqual([
      expect.objectContaining({ field: 'age', requestId: 'label-req-1' }),
      expect.objectContaining({ field: 'tags[0]', requestId: 'label-req-1' }),
    ]);
  });

  it('shows each label as the title of the request member or parameter in the API document', async () => {
    const { createApiRegistry, generateApiDocument, registerOperation } = await import('../src');
    const registry = createApiRegistry();
    registerOperation(registry, {
      method: 'post',
      path: '/echo/{itemId}',
      operationId: 'echo',
      summary: 'echo',
      tags: ['t'],
      access: 'public',
      params: idParams('itemId'),
      body: bodySchema,
    });
    const document = generateApiDocument(registry, { title: 't', version: '1' }, { itemId: '항목 번호', age: '나이' }) as unknown as {
      paths: Record<
        string,
        {
          post: {
            parameters: Array<{ name: string; schema: { title?: string } }>;
            requestBody: { content: Record<string, { schema: { properties: Record<string, { title?: string }> } }> };
          };
        }
      >;
    };
    const operation = document.paths['/echo/{itemId}'].post;
    expect(operation.parameters[0].schema.title).toBe('항목 번호');
    const properties = operation.requestBody.content['application/json'].schema.properties;
    expect(properties.age.title).toBe('나이');
    expect(properties.tags.title).toBeUndefined();
  });
});

describe('listen', () => {
  it('answers requests the HTTP parser rejects with an envelope', async () => {
    const { listen } = await import('../src');
    const net = await import('node:net');
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const { port } = server.address() as { port: number };
      const raw = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET /nothing?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('end', () => resolve(data));
      });
      expect(raw).toMatch(/^HTTP\/1.1 431/);
      expect(raw).toContain('{"code":"C0002","message":"올바르지 않은 요청 값입니다."}');
    } finally {
      server.close();
    }
  });
});

describe('trustProxySetting', () => {
  it('turns the env words Express would reject as addresses into what they mean', () => {
    expect(trustProxySetting('false')).toBe(false);
    expect(trustProxySetting('TRUE')).toBe(true);
    expect(trustProxySetting('1')).toBe(1);
    expect(trustProxySetting('loopback')).toBe('loopback');
    expect(trustProxySetting('uniquelocal, 10.0.0.1')).toBe('uniquelocal, 10.0.0.1');
  });

  it('lets a service start with TRUST_PROXY=false and then ignore X-Forwarded-For', async () => {
    const seen: string[] = [];
    const strict = createServiceApp({
      service: 'trust-test',
      logger: createLogger('trust-test', 'silent'),
      publicKey: keys.publicKey,
      trustProxy: 'false',
      routes: (a) =>
        a.get(
          '/ip',
          handle((req) => void seen.push(req.ip ?? '')),
        ),
    });
    expect((await request(strict).get('/ip').set('x-forwarded-for', '9.9.9.9')).status).toBe(200);
    expect(seen[0]).not.toBe('9.9.9.9');
  });
});

describe('OPTIONS', () => {
  it('is not answered by Express with a plain-text method list: preflight is the gateway’s', async () => {
    const res = await request(app).options('/echo');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });
  });
});

describe('/health', () => {
  it('answers 503 while the service database connection is down, 200 when it is up', async () => {
    const mongoose = (await import('mongoose')).default;
    const disconnected = mongoose.createConnection();
    const down = createServiceApp({ service: 'h', logger, publicKey: keys.publicKey, connection: disconnected, routes: () => undefined });
    const res = await request(down).get('/health');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('C0000');
    expect((await request(app).get('/health')).body).toEqual({
      code: 'SUCCESS',
      message: '성공',
      data: { status: 'UP', service: 'shared-test', version: 'unknown' },
    });
  });
});
