import { userSnapshots, type OutboxDeclaration } from '@binzip/shared';
import type { AccountsContext } from '../domain/context';
import type { AccountsModels } from '../models';
import { houseReports } from './house-reports';

/** What accounts publishes: every change of a user's snapshot fields carries its `accounts.user.<id>`. */
export const accountsOutbox = (models: AccountsModels): OutboxDeclaration => ({ events: [userSnapshots], models: [models.users] });

/** Every event accounts consumes; main.ts hands them to runService, tests start the same list. */
export const accountsConsumers = (ctx: Pick<AccountsContext, 'models'>) => [houseReports(ctx)];
