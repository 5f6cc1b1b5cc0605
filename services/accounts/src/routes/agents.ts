import { operationsOf } from '@binzip/shared';
import type { AccountsContext } from '../domain/context';
import { signUpAgent } from '../domain/sign-up';
import { agentSignUpBody } from './schemas';
import { SIGN_UP_ERRORS } from './users';

const operation = operationsOf<AccountsContext>();

/** /api/v1/agents: an agent's sign-up (the rest of an agent's account is under /api/v1/users). */
export const agentOperations = [
  operation({
    method: 'post',
    path: '/api/v1/agents/sign-up',
    operationId: 'signUpAgent',
    summary: '공인중개사 회원가입',
    description:
      'Needs a successful `check/sms` of `phone_num` within the last 30 minutes (otherwise 400 U0011, judged after the format, terms and duplicate checks). `company_email` is the agent’s e-mail.',
    tags: ['agents'],
    access: 'public',
    ceiling: 'sign-ups',
    body: agentSignUpBody,
    errors: SIGN_UP_ERRORS,
    handle: async (ctx, { body }) => {
      await signUpAgent(ctx, body);
    },
  }),
];
