/**
 * Fixed lists of the notifications service: the kinds of notice (issue 38) and the listing vocabulary saved
 * searches use. The listing words are houses' (services/houses/src/domain/vocabulary.ts, regions.ts); they are
 * repeated here rather than imported because services share only `@binzip/shared`, and a value houses adds later
 * is a value no saved search can name until it is added here too (a refusal, never a silent non-match).
 */

/** Every kind of notice the feed shows; COMMENT and REPLY are the contract's comment notices. */
export const NoticeKinds = ['COMMENT', 'REPLY', 'LISTING_MATCH', 'LISTING_APPROVED', 'LISTING_REJECTED', 'SCRAP_CHANGED'] as const;
export type NoticeKind = (typeof NoticeKinds)[number];

export const RentalTypes = ['SALE', 'JEONSE', 'MONTHLYRENT'] as const;
export const HouseTypes = ['LAND', 'HOUSE', 'FARM_HOUSE'] as const;
/** A listing is public in these deal states only, so a saved search can ask for no other. */
export const PublicDealStates = ['ONGOING', 'COMPLETED'] as const;
export const RecommendedTags = [
  'WANT_TO_INTERIOR_FOR_THE_FIRST_TIME',
  'WANT_TO_READY_HOUSE',
  'HAVE_CHILDREN',
  'WANT_TO_LOOK_A_GOOD_VIEW',
  'WANT_TO_FARM',
] as const;

/** The current province-level names: what houses' `houses.listing.published` carries as `province`. */
export const CurrentProvinces = [
  '서울특별시',
  '부산광역시',
  '대구광역시',
  '인천광역시',
  '광주광역시',
  '대전광역시',
  '울산광역시',
  '세종특별자치시',
  '경기도',
  '강원특별자치도',
  '충청북도',
  '충청남도',
  '전북특별자치도',
  '전라남도',
  '경상북도',
  '경상남도',
  '제주특별자치도',
] as const;

/**
 * What a saved search's `province` may be, and the current province names each value stands for: the city
 * filter's region words (decisions.md: 수도권, 경상, 전라, 충청, 제주, 강원), each province's short name, and its
 * full name (older names included: 강원도, 전라북도). Anything else is an unknown region.
 */
export const RegionValues: Readonly<Record<string, readonly string[]>> = (() => {
  const table: Record<string, readonly string[]> = {
    수도권: ['서울특별시', '인천광역시', '경기도'],
    경상: ['부산광역시', '대구광역시', '울산광역시', '경상북도', '경상남도'],
    전라: ['광주광역시', '전북특별자치도', '전라남도'],
    충청: ['대전광역시', '세종특별자치시', '충청북도', '충청남도'],
    제주: ['제주특별자치도'],
    강원: ['강원특별자치도'],
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
    강원도: ['강원특별자치도'],
    전라북도: ['전북특별자치도'],
  };
  for (const name of CurrentProvinces) table[name] = [name];
  return table;
})();

/** The current province names a saved search's `province` stands for; undefined for an unknown region. */
export const provincesOf = (value: string): readonly string[] | undefined => (Object.hasOwn(RegionValues, value) ? RegionValues[value] : undefined);
