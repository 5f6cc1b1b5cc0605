import type { AuthClaims } from '@binzip/shared';
import type { TemplateDoc } from '../models';
import type { Category } from './catalog';
import type { RecordsContext } from './context';

export async function saveTemplate(ctx: RecordsContext, caller: AuthClaims, input: { template: string; category: Category }): Promise<void> {
  await ctx.models.templates
    .updateOne({ _id: input.category }, { $set: { template: input.template, updatedBy: caller.userId, updatedAt: ctx.now() } }, { upsert: true })
    .exec();
}

/** A category without a template reads as an empty one. */
export async function readTemplate(ctx: RecordsContext, category: Category): Promise<{ template: string; category: Category }> {
  const stored = await ctx.models.templates.findOne({ _id: category }).lean<TemplateDoc>().exec();
  return { template: stored?.template ?? '', category };
}
