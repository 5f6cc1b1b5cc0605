import type { AuthClaims } from '@binzip/shared';
import type { TemplateDoc } from '../models';
import type { Category } from './vocabulary';
import type { RecordsContext } from './context';

export interface CategoryTemplate {
  template: string;
  category: Category;
}

export async function saveTemplate(ctx: RecordsContext, caller: AuthClaims, input: CategoryTemplate): Promise<void> {
  await ctx.models.templates
    .updateOne({ _id: input.category }, { $set: { template: input.template, updatedBy: caller.userId, updatedAt: ctx.now() } }, { upsert: true })
    .exec();
}

/** A category without a template reads as an empty one. */
export async function readTemplate(ctx: RecordsContext, input: { category: Category }): Promise<CategoryTemplate> {
  const { category } = input;
  const stored = await ctx.models.templates.findOne({ _id: category }).lean<TemplateDoc>().exec();
  return { template: stored?.template ?? '', category };
}
