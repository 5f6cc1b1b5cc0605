import { CurrentProvinces, FormerProvinceNames, HouseTypes, PublicDealStates, RecommendedTags, RegionWords, RentalTypes } from '@binzip/events';

/**
 * Fixed lists of the notifications service: the kinds of notice (issue 38) and the listing vocabulary saved
 * searches use. The listing words are houses', from its event contracts (@binzip/events): a word houses adds later
 * is one no saved search can name until this service is rebuilt with it (a refusal, never a silent non-match).
 */

/** Every kind of notice the feed shows; COMMENT and REPLY are the contract's comment notices. */
export const NoticeKinds = ['COMMENT', 'REPLY', 'LISTING_MATCH', 'LISTING_APPROVED', 'LISTING_REJECTED', 'SCRAP_CHANGED'] as const;
export type NoticeKind = (typeof NoticeKinds)[number];

export { HouseTypes, PublicDealStates, RecommendedTags, RentalTypes };

/**
 * What a saved search's `province` may be, and the current province names each value stands for: the city
 * filter's region words (decisions.md: 수도권, 경상, 전라, 충청, 제주, 강원), each province's short name, and its
 * full name (older names included: 강원도, 전라북도). Anything else is an unknown region.
 */
export const RegionValues: Readonly<Record<string, readonly string[]>> = (() => {
  const table: Record<string, readonly string[]> = {
    ...RegionWords,
    서울: ['서울특별시'],
    부산: ['부산광역시'],
    대구: ['대구광역시'],
    인천: ['인천광역시'],
    광주: ['광주광역시'],
    대전: ['대전광역시'],
    울산: ['울산광역시'],
    세종: ['세종특별자치시'],
    경기: ['경기도'],
    충북: ['충청북도'],
    충남: ['충청남도'],
    전북: ['전북특별자치도'],
    전남: ['전라남도'],
    경북: ['경상북도'],
    경남: ['경상남도'],
  };
  for (const [former, current] of Object.entries(FormerProvinceNames)) table[former] = [current];
  for (const name of CurrentProvinces) table[name] = [name];
  return table;
})();

/** The current province names a saved search's `province` stands for; undefined for an unknown region. */
export const provincesOf = (value: string): readonly string[] | undefined => (Object.hasOwn(RegionValues, value) ? RegionValues[value] : undefined);
