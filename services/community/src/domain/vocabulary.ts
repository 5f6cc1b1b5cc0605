/** Board types (the spec's prefixCategory) and their categories, with the Korean labels of the category endpoint. */
export const BoardPrefixes = ['ADVERTISEMENT', 'DEFAULT', 'INTRO'] as const;
export type BoardPrefix = (typeof BoardPrefixes)[number];

/** The preview also takes COMMUNITY, which spans the promotion and free boards. */
export const PreviewPrefixes = [...BoardPrefixes, 'COMMUNITY'] as const;
export type PreviewPrefix = (typeof PreviewPrefixes)[number];

/** What a post without a category stores, and what an update must send to keep it that way. */
export const EMPTY_CATEGORY = 'EMPTY';

export const CategoriesByPrefix: Record<BoardPrefix, ReadonlyArray<{ code: string; name: string }>> = {
  ADVERTISEMENT: [
    { code: '인테리어', name: 'INTERIOR' },
    { code: '토지', name: 'ESTATE' },
    { code: '부동산', name: 'REAL_ESTATE' },
  ],
  DEFAULT: [
    { code: '질문', name: 'QUESTION' },
    { code: '일상', name: 'DAILY' },
    { code: '나눔', name: 'SHARING' },
  ],
  INTRO: [
    { code: '트렌드', name: 'TREND' },
    { code: '후기', name: 'REVIEW' },
  ],
};

export const AllCategories = [EMPTY_CATEGORY, ...BoardPrefixes.flatMap((prefix) => CategoriesByPrefix[prefix].map((c) => c.name))] as [string, ...string[]];

export function prefixesOf(prefix: PreviewPrefix): BoardPrefix[] {
  return prefix === 'COMMUNITY' ? ['ADVERTISEMENT', 'DEFAULT'] : [prefix];
}

/** EMPTY fits every board type; any other category only its own. */
export function categoryFits(category: string, prefixes: readonly BoardPrefix[]): boolean {
  return category === EMPTY_CATEGORY || prefixes.some((prefix) => CategoriesByPrefix[prefix].some((c) => c.name === category));
}

export function isBoardPrefix(name: string): name is BoardPrefix {
  return (BoardPrefixes as readonly string[]).includes(name);
}

/** What a post without a category stores: a null or absent category is EMPTY. */
export const categoryOrEmpty = (category: string | null | undefined): string => category ?? EMPTY_CATEGORY;
