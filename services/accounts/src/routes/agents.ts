import { handle, parseBody } from '@binzip/shared';
import { Router } from 'express';
import type { AccountsContext } from '../domain/context';
import { signUpAgent } from '../domain/sign-up';
import type { AddressCeilings } from './ceilings';
import { agentSignUpBody } from './schemas';

/** /api/v1/agents: an agent's sign-up (the rest of an agent's account is under /api/v1/users). */
export function agentRoutes(ctx: AccountsContext, ceilings: AddressCeilings): Router {
  const router = Router();
  router.post(
    '/sign-up',
    ceilings.signUps,
    handle(async (req) => {
      await signUpAgent(ctx, parseBody(req, agentSignUpBody));
    }),
  );
  return router;
}
