import {
  CurrentProvinces,
  FormerProvinceNames,
  HouseTypes,
  PublicDealStates,
  RecommendedTags,
  RegionWords as CurrentRegionWords,
  RentalTypes,
} from '@binzip/events';

/**
 * The listing enums of the spec (the words themselves are said once, in houses' event contracts: @binzip/events)
 * and the Korean names the API returns next to them; the province-level names and the region words of the city
 * filter as addresses may spell them.
 */

export { HouseTypes, PublicDealStates, RecommendedTags, RentalTypes };
export type RentalType = (typeof RentalTypes)[number];
export type HouseType = (typeof HouseTypes)[number];
export type RecommendedTag = (typeof RecommendedTags)[number];

export const RecommendedTagNames = {
  WANT_TO_INTERIOR_FOR_THE_FIRST_TIME: '처음부터 인테리어 하고 싶어요.',
  WANT_TO_READY_HOUSE: '어느 정도 준비된 집이 좋아요.',
  HAVE_CHILDREN: '아이와 함께 살아요.',
  WANT_TO_LOOK_A_GOOD_VIEW: '경치가 좋은 집을 원해요.',
  WANT_TO_FARM: '농사 짓기를 원해요.',
} as const satisfies Record<RecommendedTag, string>;

export function tagNamesOf(tags: readonly string[]): string[] {
  return tags
    .map((tag) => RecommendedTagNames[tag as RecommendedTag])
    .filter((name): name is (typeof RecommendedTagNames)[RecommendedTag] => name !== undefined);
}

/** Names shown in the author's own (agent) list next to the deal state. */
export const DealStateNames = {
  APPLYING: '승인 대기',
  ONGOING: '판매중',
  COMPLETED: '판매완료',
  REJECTED: '승인 거절',
} as const;

/** A province's current name preceded by the older names counted under it (an address may begin with either). */
const withFormerNames = (names: readonly string[]): string[] =>
  names.flatMap((name) => [...Object.keys(FormerProvinceNames).filter((former) => FormerProvinceNames[former] === name), name]);

/**
 * Province-level names in full. A saved listing's `city` must begin with one of them (the spec: "the
 * province-level name in full, not abbreviated"); the older and newer names of Gangwon and Jeonbuk both count.
 */
export const ProvinceNames = withFormerNames(CurrentProvinces) as [string, ...string[]];

/** Region words of the city filter (decisions.md) and the province-level names, older ones too, each one stands for. */
export const RegionWords: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries(CurrentRegionWords).map(([word, provinces]) => [word, withFormerNames(provinces)]),
);
