/**
 * The listing enums of the spec and the Korean names the API returns next to them; the province-level names and the
 * region words of the city filter.
 */

export const RentalTypes = ['SALE', 'JEONSE', 'MONTHLYRENT'] as const;
export type RentalType = (typeof RentalTypes)[number];

/**
 * What kind of property a listing is (the original site's 2024-08-18 change "농가거래"): 토지, 주택, 농가.
 * Optional: listings saved before it, and by clients that do not send it, have none.
 */
export const HouseTypes = ['LAND', 'HOUSE', 'FARM_HOUSE'] as const;
export type HouseType = (typeof HouseTypes)[number];

export const RecommendedTagNames = {
  WANT_TO_INTERIOR_FOR_THE_FIRST_TIME: '처음부터 인테리어 하고 싶어요.',
  WANT_TO_READY_HOUSE: '어느 정도 준비된 집이 좋아요.',
  HAVE_CHILDREN: '아이와 함께 살아요.',
  WANT_TO_LOOK_A_GOOD_VIEW: '경치가 좋은 집을 원해요.',
  WANT_TO_FARM: '농사 짓기를 원해요.',
} as const;
export type RecommendedTag = keyof typeof RecommendedTagNames;
export const RecommendedTags = Object.keys(RecommendedTagNames) as [RecommendedTag, ...RecommendedTag[]];

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

/** Public-list deal state filter values (the spec's dealState). */
export const PublicDealStates = ['ONGOING', 'COMPLETED'] as const;

/**
 * Province-level names in full. A saved listing's `city` must begin with one of them (the spec: "the
 * province-level name in full, not abbreviated"); the older and newer names of Gangwon and Jeonbuk both count.
 */
export const ProvinceNames = [
  '서울특별시',
  '부산광역시',
  '대구광역시',
  '인천광역시',
  '광주광역시',
  '대전광역시',
  '울산광역시',
  '세종특별자치시',
  '경기도',
  '강원도',
  '강원특별자치도',
  '충청북도',
  '충청남도',
  '전라북도',
  '전북특별자치도',
  '전라남도',
  '경상북도',
  '경상남도',
  '제주특별자치도',
] as const;

/** Region words of the city filter (decisions.md) and the province-level names each one stands for. */
export const RegionWords: Record<string, readonly string[]> = {
  수도권: ['서울특별시', '인천광역시', '경기도'],
  경상: ['부산광역시', '대구광역시', '울산광역시', '경상북도', '경상남도'],
  전라: ['광주광역시', '전라북도', '전북특별자치도', '전라남도'],
  충청: ['대전광역시', '세종특별자치시', '충청북도', '충청남도'],
  제주: ['제주특별자치도'],
  강원: ['강원도', '강원특별자치도'],
};
