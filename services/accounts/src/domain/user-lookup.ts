import { AppError } from '@binzip/shared';
import type { AccountsModels, UserDoc } from '../models';

/** A user's whole document (without its unsent events), or C0001; sessions, profiles and admin changes all read it. */
export async function findUser(ctx: { models: AccountsModels }, userId: number): Promise<UserDoc> {
  const user = await ctx.models.users.findById(userId, { pendingEvents: 0 }).lean<UserDoc>().exec();
  if (!user) throw AppError.notFound();
  return user;
}

export async function isUserNameAvailable(ctx: { models: AccountsModels }, input: { userName: string }): Promise<boolean> {
  return !(await ctx.models.users.exists({ userName: input.userName }).exec());
}

export async function isNickNameAvailable(ctx: { models: AccountsModels }, input: { nick_name: string }): Promise<boolean> {
  return !(await ctx.models.users.exists({ nickName: input.nick_name }).exec());
}
