/**
 * The API document's examples (contracts/examples, recorded from the end-to-end tests' answers by
 * `npm run api:examples`) against the current document: valid, complete but for the written exemptions, and
 * about operations and answers the document still has.
 */
import { readApiExamples, type ApiExamples } from '@binzip/shared';
import { buildApiDocument } from '../../scripts/lib/openapi';
import { EXAMPLES_DIR, REDACTED_TOKEN } from '../support/api-examples';
import { exampleProblems, readExemptions } from '../support/api-examples-check';

const bare = buildApiDocument({});
const examples = readApiExamples(EXAMPLES_DIR);
const exemptions = readExemptions();

type Json = Record<string, unknown>;

test('every operation has its recorded examples, each valid against its schema (npm run api:examples re-records them)', () => {
  expect(exampleProblems(bare, examples, exemptions)).toEqual([]);
});

test('the document carries them: a request body, a success answer and a named example per error code', () => {
  const signIn = (buildApiDocument().paths as Record<string, Record<string, Json>>)['/api/v1/users/sign-in'].post;
  const body = ((signIn.requestBody as Json).content as Record<string, Json>)['application/json'];
  expect(body.example).toEqual(examples.signIn.request?.body);
  const responses = signIn.responses as Record<string, { content: Record<string, Json> }>;
  expect(responses['200'].content['application/json'].example).toMatchObject({ code: 'SUCCESS', data: { access_token: `Bearer ${REDACTED_TOKEN}` } });
  expect(responses['400'].content['application/json'].examples).toMatchObject({ U0001: { value: { code: 'U0001' } }, U0002: { value: { code: 'U0002' } } });
});

test('no token or cookie is stored: every JWT in the examples is the redacted one', () => {
  const tokens = JSON.stringify(examples).match(/eyJ[\w-]*\.[\w-]+\.[\w-]+/g) ?? [];
  expect(tokens.filter((token) => token !== REDACTED_TOKEN)).toEqual([]);
  expect(JSON.stringify(examples)).not.toMatch(/RefreshToken=|Set-Cookie/i);
});

test('a broken, missing, stale or unlisted example is reported', () => {
  const broken: ApiExamples = structuredClone(examples);
  const success = broken.signIn.responses['200'].SUCCESS as { data: Json };
  success.data = { access_token: 42 };
  delete broken.getHouse.responses['200'];
  broken.removedOperation = { responses: { '200': { SUCCESS: { code: 'SUCCESS', message: '성공' } } } };
  broken.signIn.responses['404'] = { C0001: { code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' } };
  const problems = exampleProblems(bare, broken, exemptions);
  expect(problems).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^signIn 200: .*access_token/),
      'getHouse: no example of 200 SUCCESS',
      'examples of removedOperation, which the document no longer has',
      'signIn: an example of 404 C0001, which it does not list',
    ]),
  );
  expect(exampleProblems(bare, examples, [...exemptions, { answers: ['200 SUCCESS'], operations: ['signIn'], reason: 'stale' }])).toEqual([
    'signIn: 200 SUCCESS is exempted but has an example (remove the exemption)',
  ]);
});
