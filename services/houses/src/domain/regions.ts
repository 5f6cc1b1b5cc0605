import { escapeRegex } from '@binzip/shared';

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

/** The `city` condition: a region word matches listings whose city starts with one of its names; other text is a substring. */
export function cityCondition(city: string): RegExp | { $in: RegExp[] } {
  // hasOwn: a query such as `city=constructor` must not reach Object.prototype.
  const region = Object.hasOwn(RegionWords, city) ? RegionWords[city] : undefined;
  if (region) return { $in: region.map((name) => new RegExp(`^${escapeRegex(name)}`)) };
  return new RegExp(escapeRegex(city), 'i');
}
