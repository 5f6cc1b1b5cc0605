import { z } from 'zod';
import { createApiRegistry, generateApiDocument, idParams, mergeApiDocuments, registerOperation, type ApiDocument } from '../src';
import { ApiContract } from '../../test/support/contract';

type Responses = Record<string, { content: { 'application/json': { schema: { properties: { code: { enum: string[] } } } } } }>;

function documentWith(
  path: string,
  access: 'public' | 'user' | 'admin',
  errors: Array<'C0001' | 'C0003' | 'U0002'> = [],
  options: { ignoresAuthorization?: boolean } = {},
): ApiDocument {
  const registry = createApiRegistry();
  registerOperation(registry, {
    ...options,
    method: 'put',
    path,
    operationId: `op${path.replace(/\W/g, '')}`,
    summary: 'test',
    tags: ['test'],
    access,
    params: idParams('itemId'),
    body: z.strictObject({ title: z.string().min(1) }),
    data: z.number().int(),
    errors,
  });
  return generateApiDocument(registry, { title: 'test', version: '1' });
}

const responsesOf = (doc: ApiDocument, path: string): Responses => (doc.paths as Record<string, { put: { responses: Responses } }>)[path].put.responses;
const codesAt = (responses: Responses, status: number): string[] => responses[String(status)].content['application/json'].schema.properties.code.enum;

describe('registerOperation', () => {
  it('declares one error answer per status with exactly the codes the operation can give', () => {
    const responses = responsesOf(documentWith('/items/{itemId}', 'user', ['C0001', 'C0003', 'U0002']), '/items/{itemId}');
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500']);
    expect(codesAt(responses, 400).sort()).toEqual(['C0002', 'U0002']);
    expect(codesAt(responses, 401).sort()).toEqual(['J0000', 'J0001', 'J0002', 'J0004']);
    // U0012 is the suspension guard's, which every write carrying a member's token passes.
    expect(codesAt(responses, 403)).toEqual(['C0003', 'U0012']);
    expect(codesAt(responses, 500)).toEqual(['C0000']);
  });

  it("gives every write the runtime guards' codes (the write ceiling's 429 C0004 with Retry-After, U0012, J0004), whatever its access", () => {
    const responses = responsesOf(documentWith('/items/{itemId}', 'user'), '/items/{itemId}') as unknown as Record<
      string,
      { headers?: Record<string, unknown> }
    >;
    expect(codesAt(responses as unknown as Responses, 429)).toEqual(['C0004']);
    expect(Object.keys(responses['429']?.headers ?? {})).toEqual(['Retry-After']);
    // A member's token reaches the guards before an administrators' operation refuses it (J0006).
    const admin = responsesOf(documentWith('/a/{itemId}', 'admin'), '/a/{itemId}');
    expect(codesAt(admin, 429)).toEqual(['C0004']);
    expect(codesAt(admin, 403).sort()).toEqual(['J0006', 'U0012']);
    // A public write with a stale or suspended member's token meets the same guards.
    const open = responsesOf(documentWith('/p/{itemId}', 'public'), '/p/{itemId}');
    expect(codesAt(open, 429)).toEqual(['C0004']);
    expect(codesAt(open, 403)).toEqual(['U0012']);
  });

  it('gives public operations the token codes (a sent token is checked), an explicit empty security, and none where the header is ignored', () => {
    const open = documentWith('/p/{itemId}', 'public');
    expect(codesAt(responsesOf(open, '/p/{itemId}'), 401).sort()).toEqual(['J0001', 'J0002', 'J0004']);
    expect((open.paths as Record<string, { put: { security?: unknown } }>)['/p/{itemId}'].put.security).toEqual([]);
    const reissue = responsesOf(documentWith('/r/{itemId}', 'public', [], { ignoresAuthorization: true }), '/r/{itemId}');
    expect(reissue['401']).toBeUndefined();
    expect(reissue['403']).toBeUndefined();
    expect(reissue['429']).toBeUndefined();
  });

  it('documents a file answered by the handler with its own success answers, and a malformed file name as not found', () => {
    const registry = createApiRegistry();
    registerOperation(registry, {
      method: 'get',
      path: '/files/{file}',
      operationId: 'getFile',
      summary: 'test',
      tags: ['test'],
      access: 'public',
      params: z.object({ file: z.string().regex(/^[0-9a-f]{32}\.webp$/) }),
      malformedPathNotFound: true,
      successResponses: { 200: { description: 'file', content: { 'image/webp': { schema: z.string() } } }, 304: { description: 'unchanged' } },
    });
    const get = (generateApiDocument(registry, { title: 'test', version: '1' }).paths as Record<string, { get: { responses: Responses } }>)['/files/{file}']
      .get;
    expect(Object.keys(get.responses).sort()).toEqual(['200', '304', '401', '404', '500']);
    expect(Object.keys(get.responses['200'].content)).toEqual(['image/webp']);
    expect(codesAt(get.responses, 404)).toEqual(['C0001']);
  });

  it('produces valid OpenAPI 3.1 that checks answers', async () => {
    const contract = await ApiContract.create(documentWith('/items/{itemId}', 'user', ['C0001']));
    expect(() => contract.check({ method: 'PUT', path: '/items/3', status: 200, body: { code: 'SUCCESS', message: '성공', data: 3 } })).not.toThrow();
    expect(() => contract.check({ method: 'PUT', path: '/items/3', status: 200, body: { code: 'SUCCESS', message: '성공', data: 'x' } })).toThrow(
      /does not match/,
    );
    expect(() => contract.check({ method: 'PUT', path: '/items/3', status: 404, body: { code: 'C0003', message: '권한' } })).toThrow(/does not match/);
    expect(() => contract.check({ method: 'PUT', path: '/items/3', status: 409, body: { code: 'C0001', message: 'x' } })).toThrow(/not documented/);
    expect(() => contract.check({ method: 'GET', path: '/items/3', status: 200, body: {} })).toThrow(/no operation/);
    expect(contract.uncovered('test')).toEqual([]);
  });
});

describe('mergeApiDocuments', () => {
  const info = { title: 'all', version: '1' };

  it('joins the paths and adds the gateway faults to every operation', () => {
    const merged = mergeApiDocuments([documentWith('/a/{itemId}', 'user'), documentWith('/b/{itemId}', 'public')], info);
    expect(Object.keys(merged.paths ?? {}).sort()).toEqual(['/a/{itemId}', '/b/{itemId}']);
    const responses = responsesOf(merged, '/b/{itemId}');
    for (const status of [413, 502, 503, 504]) expect(responses[String(status)]).toBeDefined();
  });

  it('refuses two services claiming one path', () => {
    expect(() => mergeApiDocuments([documentWith('/a/{itemId}', 'user'), documentWith('/a/{itemId}', 'user')], info)).toThrow(/overlap/);
  });

  it('refuses one component name with two meanings', () => {
    const first = documentWith('/a/{itemId}', 'user');
    const second = documentWith('/b/{itemId}', 'user');
    first.components = { ...first.components, schemas: { Item: { type: 'string' } } };
    second.components = { ...second.components, schemas: { Item: { type: 'integer' } } };
    expect(() => mergeApiDocuments([first, second], info)).toThrow(/components.schemas.Item/);
  });
});
