import type { AuthClaims } from '@binzip/shared';
import type { PreferencesDoc } from '../models';
import type { NotificationsContext } from './context';
import { NoticeKinds, type NoticeKind } from './vocabulary';

/** Every kind and whether the member gets it (`{KIND: boolean}`); a kind never turned off is on. */
export type Preferences = Record<NoticeKind, boolean>;

const render = (off: readonly string[]): Preferences => Object.fromEntries(NoticeKinds.map((kind) => [kind, !off.includes(kind)])) as Preferences;

export async function getPreferences(ctx: NotificationsContext, caller: AuthClaims): Promise<Preferences> {
  const doc = await ctx.models.preferences.findById(caller.userId).lean<PreferencesDoc>().exec();
  return render(doc?.off ?? []);
}

/** Sets the kinds named (the others keep their setting) and answers the whole set. One upsert: no race to lose. */
export async function setPreferences(ctx: NotificationsContext, caller: AuthClaims, input: Partial<Preferences>): Promise<Preferences> {
  const turnOff = NoticeKinds.filter((kind) => input[kind] === false);
  const turnOn = NoticeKinds.filter((kind) => input[kind] === true);
  const now = ctx.now();
  const model = ctx.models.preferences;
  if (turnOn.length > 0) await model.updateOne({ _id: caller.userId }, { $pullAll: { off: turnOn }, $set: { updatedAt: now } }, { upsert: true }).exec();
  if (turnOff.length > 0)
    await model.updateOne({ _id: caller.userId }, { $addToSet: { off: { $each: turnOff } }, $set: { updatedAt: now } }, { upsert: true }).exec();
  return getPreferences(ctx, caller);
}

/** What each of these members turned off (a notice's few recipients: one query by id, whatever kinds it may be). */
export async function turnedOffKinds(ctx: NotificationsContext, userIds: readonly number[]): Promise<Map<number, readonly string[]>> {
  if (userIds.length === 0) return new Map();
  const docs = await ctx.models.preferences
    .find({ _id: { $in: userIds } }, { off: 1 })
    .lean<Array<{ _id: number; off?: string[] }>>()
    .exec();
  return new Map(docs.map((d) => [d._id, d.off ?? []]));
}

/** Of these members, the ones who turned `kind` off (one query for a whole alert fan-out). */
export async function turnedOff(ctx: NotificationsContext, kind: NoticeKind, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const docs = await ctx.models.preferences
    .find({ _id: { $in: userIds }, off: kind }, { _id: 1 })
    .lean<Array<{ _id: number }>>()
    .exec();
  return new Set(docs.map((d) => d._id));
}
