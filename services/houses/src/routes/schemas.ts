import {
  absentQueryValue,
  formNumber,
  httpUrl,
  idParams,
  isoTimestampSchema,
  nullableFormNumber,
  pageQuery,
  pageSchema,
  queryInt,
  queryBoolean,
  queryEnum,
  querySort,
  queryText,
  typedPhone,
  typedText,
  type FieldLabels,
} from '@binzip/shared';
import { z } from 'zod';
import type { AdminReportItem, HouseStats, MyReportItem } from '../domain/admin-reports';
import type { BulkOutcome } from '../domain/approval';
import { MyReportStates, ReportActions, ReportStatuses, ReportTypeNames } from '../domain/admin-reports';
import type { ListingBody } from '../domain/listing-input';
import { EQUALITY_FILTERS, type EqualityFilter, type OwnListPage } from '../domain/queries';
import type { HouseCluster, HouseMapItem, HouseNearItem, RegionCount } from '../domain/place-queries';
import { KOREA } from '../domain/places';
import type { HouseAgentItem, HouseDetail, HouseListItem } from '../domain/render';
import { DealStateNames, HouseTypes, ProvinceNames, RecommendedTagNames, RecommendedTags, RentalTypes } from '../domain/vocabulary';
import { DealStates, ReportTypes } from '../models';

/** Korean names of the request fields: C0002 messages and the API document use them (shared `FieldLabels`). */
export const fieldLabels: FieldLabels = {
  tmpYn: '임시저장 여부',
  rentalType: '거래 유형',
  city: '지역',
  detail: '상세 주소',
  zipCode: '우편번호',
  size: '크기',
  purpose: '용도',
  floorNum: '층수',
  contact: '연락처',
  createdDate: '준공 연도',
  price: '가격',
  monthlyPrice: '월세',
  agentName: '중개사 이름',
  houseType: '매물 유형',
  agentDetail: '중개사 상세 설명',
  title: '제목',
  code: '본문',
  imageUrls: '이미지 주소',
  recommendedTag: '추천 태그',
  search: '검색어',
  keyword: '검색어',
  dealState: '거래 상태',
  filter: '거래 상태',
  isCompleted: '거래 완료 여부',
  page: '페이지',
  houseId: '매물 번호',
  reportType: '신고 유형',
  reportReason: '신고 사유',
  approve: '승인 여부',
  reason: '사유',
  status: '상태',
  action: '처리',
  note: '처리 메모',
  ids: '매물 번호 목록',
  sort: '정렬',
  image: '이미지 파일',
  file: '이미지 파일 이름',
  latitude: '위도',
  longitude: '경도',
  south: '남쪽 위도',
  west: '서쪽 경도',
  north: '북쪽 위도',
  east: '동쪽 경도',
  radiusKm: '반경(km)',
  zoom: '확대 수준',
  minPrice: '최소 가격',
  maxPrice: '최대 가격',
};

// ---------------------------------------------------------------------------------------------------------
// Requests

export const houseParams = idParams('houseId');

/** Drafts are not validated, but are still bounded: room to trim a long body before saving it. */
export const MAX_DRAFT_CODE_LENGTH = 20_000;
export const MAX_IMAGES = 20;
const MAX_URL = 2_048;
const MAX_PRICE = 100_000_000;
const MAX_MONTHLY_PRICE = 10_000_000;

// Drafts: types are checked and sizes bounded; blank or null values are filled in by the domain.
const draftText = (max: number) => z.string().max(max).nullish();
const draftNumber = (max: number) => nullableFormNumber(z.number().finite().min(0).max(max)).optional();
const floorNum = z.number().int().min(-20).max(300);

/** A client-given point (issue 39): both or neither (the domain checks that), inside Korea's bounds. */
const bodyPoint = {
  latitude: nullableFormNumber(z.number().min(KOREA.south).max(KOREA.north))
    .optional()
    .meta({ description: `위도 (WGS84, ${KOREA.south}~${KOREA.north}); 경도와 함께 보내거나 둘 다 생략 (생략하면 서버가 주소로 찾음)` }),
  longitude: nullableFormNumber(z.number().min(KOREA.west).max(KOREA.east))
    .optional()
    .meta({ description: `경도 (WGS84, ${KOREA.west}~${KOREA.east}); 위도와 함께` }),
};
/** The agent's description: plain text in one line, as the client's input holds it; the original kept 255. */
export const MAX_AGENT_DETAIL = 255;
/**
 * The fields of the original site's "농가거래" change, optional in drafts and saved listings alike (clients
 * before it do not send them): `""` and null clear, absent keeps what an edit finds.
 */
const houseType = z
  .union([z.literal(''), z.enum(HouseTypes)])
  .nullish()
  .meta({ description: 'LAND 토지, HOUSE 주택, FARM_HOUSE 농가 (선택; 빈 문자열이나 null은 없음)' });
const agentDetail = typedText(MAX_AGENT_DETAIL)
  .nullish()
  .meta({ description: `중개사 상세 설명, 일반 텍스트 ${MAX_AGENT_DETAIL}자 이하 (선택)` });

/**
 * A draft's pictures: blank entries ("" or only spaces) are dropped before the URL check, so the newest web
 * client's draft saved before a main photo is chosen (`imageUrls: [""]`) is stored without them. Saves stay strict.
 */
const draftImageUrls = z
  .preprocess(
    (value) => (Array.isArray(value) ? (value as unknown[]).filter((item) => !(typeof item === 'string' && item.trim() === '')) : value),
    z.array(httpUrl(MAX_URL)).max(MAX_IMAGES).nullish(),
  )
  .meta({ description: '이미지 주소 (절대 http(s) URL); 임시저장에서는 빈 문자열 항목을 빼고 저장' });

export const draftListingBody = z
  .strictObject({
    tmpYn: z.literal(true),
    rentalType: z.union([z.literal(''), z.enum(RentalTypes)]).nullish(),
    city: draftText(200),
    detail: draftText(200),
    zipCode: draftText(20),
    size: draftText(20),
    purpose: draftText(100),
    floorNum: nullableFormNumber(floorNum).optional(),
    contact: typedPhone(draftText(20)),
    createdDate: draftText(10),
    price: draftNumber(MAX_PRICE),
    monthlyPrice: draftNumber(MAX_MONTHLY_PRICE),
    agentName: draftText(50),
    title: draftText(100),
    code: draftText(MAX_DRAFT_CODE_LENGTH),
    imageUrls: draftImageUrls,
    recommendedTag: z.array(z.enum(RecommendedTags)).max(10).nullish(),
    ...bodyPoint,
    houseType,
    agentDetail,
  })
  .meta({ id: 'HouseDraftBody', description: '임시저장 (tmpYn true): 형식과 길이만 검사, 빈 값 허용' });

const required = (max: number) => z.string().trim().min(1).max(max);
const pattern = (regex: RegExp) => z.string().trim().regex(regex);
/** A saved listing's `city` begins with a province-level name in full (the spec). */
const provinceNames = new RegExp(`^(${ProvinceNames.join('|')})`);

// Saved listings: every required field present and well-formed; the first failing field is named.
export const savedListingBody = z
  .strictObject({
    tmpYn: z.literal(false),
    rentalType: z.enum(RentalTypes),
    city: required(200).regex(provinceNames, 'must begin with a province-level name in full'),
    // Optional since the original site's "농가거래" change (its server and client); stored as "".
    detail: z.string().trim().max(200).nullish(),
    zipCode: pattern(/^\d{5,6}$/),
    size: pattern(/^\d{1,7}(\.\d{1,2})?$/),
    purpose: z.string().trim().max(100).nullish(),
    floorNum: nullableFormNumber(floorNum).meta({ description: '층수; null이나 빈 문자열은 0으로 저장' }),
    contact: typedPhone(pattern(/^\d{9,11}$/)),
    createdDate: pattern(/^(\d{4})?$/)
      .nullish()
      .meta({ description: '준공 연도 YYYY (선택; 빈 문자열이나 null은 없음)' }),
    price: formNumber(z.number().finite().min(0).max(MAX_PRICE)),
    monthlyPrice: formNumber(z.number().finite().min(0).max(MAX_MONTHLY_PRICE)),
    agentName: z.string().trim().max(50).nullish(),
    title: required(100),
    // Bounded far above the limit only so a huge value is refused cheaply; the limit itself (10000) is H0000.
    code: z.string().trim().min(1).max(1_000_000).meta({ description: '본문 HTML, 10000자 이하 (넘으면 H0000); 허용 목록 밖의 마크업은 제거되어 저장' }),
    imageUrls: z.array(httpUrl(MAX_URL)).max(MAX_IMAGES),
    recommendedTag: z.array(z.enum(RecommendedTags)).max(10).nullish(),
    ...bodyPoint,
    houseType,
    agentDetail,
  })
  .meta({ id: 'HouseSavedBody', description: '저장 (tmpYn false): 모든 필수 항목 검사' });

/** A create/update body: a draft (loosely checked) or a saved listing (strictly), told apart by `tmpYn`. */
export const listingBody = z.discriminatedUnion('tmpYn', [draftListingBody, savedListingBody], {
  error: (issue) =>
    issue.code === 'invalid_union' && typeof issue.input === 'object' && issue.input !== null && (issue.input as { tmpYn?: unknown }).tmpYn === undefined
      ? `${fieldLabels.tmpYn} 값이 누락되었습니다.`
      : `${fieldLabels.tmpYn} 값이 올바르지 않습니다.`,
}) satisfies z.ZodType<ListingBody>;

const trimmedText = (max: number) => z.preprocess((value) => (typeof value === 'string' ? value.trim() : value), queryText(max));

/** `recommendedTag` may repeat (`?recommendedTag=A&recommendedTag=B`) and each value may be a comma list. */
const tagList = z.preprocess(
  (value) => {
    if (absentQueryValue(value) === undefined) return undefined;
    const parts = (Array.isArray(value) ? (value as unknown[]) : [value]).flatMap((v): unknown[] => (typeof v === 'string' ? v.split(',') : [v]));
    const cleaned = parts.map((p) => (typeof p === 'string' ? p.trim() : p)).filter((p) => absentQueryValue(p) !== undefined);
    return cleaned.length === 0 ? undefined : cleaned;
  },
  z.array(z.enum(RecommendedTags)).max(20).optional(),
);

/** `houseType` as the newest web client asks it (`houseType=LAND`); several kinds repeated or comma-separated. */
const houseTypeList = z.preprocess(
  (value) => {
    if (absentQueryValue(value) === undefined) return undefined;
    const parts = (Array.isArray(value) ? (value as unknown[]) : [value]).flatMap((v): unknown[] => (typeof v === 'string' ? v.split(',') : [v]));
    const cleaned = parts.map((p) => (typeof p === 'string' ? p.trim() : p)).filter((p) => absentQueryValue(p) !== undefined);
    return cleaned.length === 0 ? undefined : [...new Set(cleaned)];
  },
  z.array(z.enum(HouseTypes)).max(HouseTypes.length).optional(),
);

const QUERY_DECIMAL = /^-?\d{1,4}(\.\d{1,12})?$/;

/** A required decimal query value (a coordinate, a distance) between bounds; absent is C0002 too. */
function queryDecimal(min: number, max: number, options: { above?: boolean; description: string }) {
  const number = options.above ? z.number().gt(min).max(max) : z.number().min(min).max(max);
  const text = z.string().regex(QUERY_DECIMAL).transform(Number).pipe(number);
  return z
    .preprocess(absentQueryValue, text)
    .meta({ type: 'number', ...(options.above ? { exclusiveMinimum: min } : { minimum: min }), maximum: max, description: options.description });
}

const queryPrice = (description: string) =>
  z
    .preprocess(
      absentQueryValue,
      z
        .string()
        .regex(/^\d{1,9}$/)
        .transform(Number)
        .pipe(z.number().int().min(0).max(MAX_PRICE))
        .optional(),
    )
    .meta({ type: 'integer', minimum: 0, maximum: MAX_PRICE, description });

/** One enum parameter per equality filter of domain/queries.ts `EQUALITY_FILTERS`. */
const equalityFilterShape = Object.fromEntries(
  Object.entries(EQUALITY_FILTERS).map(([field, values]) => [field, queryEnum(values as readonly [string, ...string[]])]),
) as unknown as {
  [K in EqualityFilter]: ReturnType<typeof queryEnum<(typeof EQUALITY_FILTERS)[K]>>;
};

/** The filters the public list and the place queries share (domain/queries.ts `ListingFilterQuery`). */
const listingFilterShape = {
  ...equalityFilterShape,
  // Several kinds at once (the newest web client's tabs), so not an equality filter.
  houseType: houseTypeList.meta({ description: '매물 유형 LAND, HOUSE, FARM_HOUSE: 반복하거나 쉼표로 여러 값' }),
  recommendedTag: tagList.meta({ description: '반복하거나 쉼표로 여러 값' }),
  minPrice: queryPrice('가격 하한 (포함)'),
  maxPrice: queryPrice('가격 상한 (포함)'),
};

/** minPrice above maxPrice is C0002 naming maxPrice. */
const priceRangeInOrder = (query: { minPrice?: number; maxPrice?: number }, issue: z.core.$RefinementCtx) => {
  if (query.minPrice !== undefined && query.maxPrice !== undefined && query.minPrice > query.maxPrice) {
    issue.addIssue({ code: 'custom', path: ['maxPrice'], message: `${fieldLabels.maxPrice} 값이 ${fieldLabels.minPrice}보다 작습니다.` });
  }
};

export const publicListQuery = z
  .object({
    city: trimmedText(100).meta({ description: '지역어 (수도권, 경상, 전라, 충청, 제주, 강원) 또는 주소의 일부' }),
    search: trimmedText(100).meta({ description: '제목 또는 작성자 닉네임의 일부' }),
    ...listingFilterShape,
    ...pageQuery(8),
  })
  .superRefine(priceRangeInOrder);

const latitude = (description: string) => queryDecimal(-90, 90, { description });
const longitude = (description: string) => queryDecimal(-180, 180, { description });

const boxShape = {
  south: latitude('상자의 남쪽 위도 (WGS84)'),
  west: longitude('상자의 서쪽 경도'),
  north: latitude('상자의 북쪽 위도 (south 이상)'),
  east: longitude('상자의 동쪽 경도 (west 이상)'),
};

/** An inverted box (south above north, west east of east) is C0002 naming north or east. */
const boxInOrder = (box: { south: number; west: number; north: number; east: number }, issue: z.core.$RefinementCtx) => {
  if (box.south > box.north) issue.addIssue({ code: 'custom', path: ['north'], message: `${fieldLabels.north} 값이 ${fieldLabels.south}보다 작습니다.` });
  if (box.west > box.east) issue.addIssue({ code: 'custom', path: ['east'], message: `${fieldLabels.east} 값이 ${fieldLabels.west}보다 작습니다.` });
};

export const mapQuery = z.object({ ...boxShape, ...listingFilterShape, ...pageQuery(20, 100) }).superRefine((query, issue) => {
  boxInOrder(query, issue);
  priceRangeInOrder(query, issue);
});

/** Most distance a near query covers. */
export const MAX_RADIUS_KM = 200;

export const nearQuery = z
  .object({
    latitude: queryDecimal(KOREA.south, KOREA.north, { description: `중심 위도 (${KOREA.south}~${KOREA.north})` }),
    longitude: queryDecimal(KOREA.west, KOREA.east, { description: `중심 경도 (${KOREA.west}~${KOREA.east})` }),
    radiusKm: queryDecimal(0, MAX_RADIUS_KM, { above: true, description: `반경 km (0 초과 ${MAX_RADIUS_KM} 이하)` }),
    ...listingFilterShape,
    ...pageQuery(20, 100),
  })
  .superRefine(priceRangeInOrder);

export const clusterQuery = z
  .object({
    ...boxShape,
    zoom: queryInt(6, 0, 22, '웹 지도의 확대 수준: 6이면 전국, 한 단계마다 칸의 변이 절반'),
    ...listingFilterShape,
  })
  .superRefine((query, issue) => {
    boxInOrder(query, issue);
    priceRangeInOrder(query, issue);
  });

export const ownDraftsQuery = z.object({ ...pageQuery(10) });

export const scrapListQuery = z.object({ filter: queryEnum(DealStates), ...pageQuery(10) });

/** The caller's saved listings; the web client's "내 매물 관리" page names the search `keyword`: both names work. */
export const ownListQuery = z.object({
  search: trimmedText(100).meta({ description: '제목의 일부 (keyword와 같음)' }),
  keyword: trimmedText(100).meta({ description: '제목의 일부 (search와 같음; 둘 다 있으면 keyword)' }),
  isCompleted: queryBoolean(),
  ...pageQuery(10),
});

/**
 * The approval queue (issue 40): oldest first by default (a queue is worked from its oldest), sortable by the last
 * update either way, filterable by rental type, region word or address part, and title.
 */
export const waitingListQuery = z.object({
  sort: querySort(['updatedAt'], { field: 'updatedAt', direction: 1 }),
  rentalType: queryEnum(RentalTypes),
  city: queryText(100).meta({ description: '지역어 (수도권, 경상, 전라, 충청, 제주, 강원) 또는 주소의 일부' }),
  search: queryText(100).meta({ description: '제목의 일부' }),
  ...pageQuery(10),
});

export const reportBody = z.strictObject({
  reportType: z.enum(ReportTypes),
  reportReason: z.string().trim().min(1).max(100),
});

export const approvalBody = z.strictObject({
  approve: z.boolean(),
  reason: z
    .string()
    .trim()
    .max(200)
    .nullish()
    .transform((v) => v ?? undefined),
});

export const reportListQuery = z.object({
  status: queryEnum(ReportStatuses).transform((s) => s ?? 'OPEN'),
  sort: querySort(['lastReportedAt'], { field: 'lastReportedAt', direction: -1 }),
  ...pageQuery(20, 100),
});

/** The optional note (issue 40) goes to the reporters and the listing's author; blank counts as none. */
export const reportDecisionBody = z.strictObject({
  action: z.enum(ReportActions),
  note: z
    .string()
    .trim()
    .max(500)
    .nullish()
    .transform((v) => v || undefined),
});

/** The most ids one bulk decision takes (issue 40). */
export const BULK_MAX_IDS = 100;

/**
 * One decision on several waiting listings. Malformed (no ids, more than 100, a reason over 200 characters, a
 * reject without a reason) is refused whole with C0002; a well-formed request answers per id.
 */
export const bulkApprovalBody = z
  .strictObject({
    ids: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).min(1).max(BULK_MAX_IDS).meta({ description: '매물 번호 (1~100개)' }),
    approve: z.boolean(),
    reason: z
      .string()
      .trim()
      .max(200)
      .nullish()
      .transform((v) => v || undefined)
      .meta({ description: '거절 사유 (거절이면 필수, 1~200자; 모든 매물에 같은 사유)' }),
  })
  .superRefine((body, issue) => {
    if (!body.approve && !body.reason) issue.addIssue({ code: 'custom', path: ['reason'], message: `${fieldLabels.reason}를 입력해 주세요.` });
  });

// ---------------------------------------------------------------------------------------------------------
// Responses (`satisfies` keeps them in step with what the domain returns)

/** What a write of one listing answers with. */
export const houseIdData = z.number().int().meta({ description: '빈집 게시글 id' });

const rentalType = z.string().meta({ description: 'SALE, JEONSE, MONTHLYRENT (임시저장은 빈 문자열일 수 있음)' });
const recommendedTag = z.array(z.string()).meta({ description: `추천 태그: ${RecommendedTags.join(', ')}` });
const recommendedTagName = z.array(z.enum(Object.values(RecommendedTagNames) as [string, ...string[]]));

const houseTypeAnswer = z.enum(HouseTypes).optional().meta({ description: 'LAND 토지, HOUSE 주택, FARM_HOUSE 농가; 유형이 없는 매물에는 없음' });

export const houseListItemSchema = z
  .object({
    houseId: z.number().int(),
    houseType: houseTypeAnswer,
    rentalType,
    city: z.string(),
    price: z.number(),
    monthlyPrice: z.number(),
    nickName: z.string(),
    createdAt: isoTimestampSchema,
    isCompleted: z.boolean(),
    imageUrl: z.string().nullable(),
    title: z.string(),
    recommendedTag,
    recommendedTagName,
  })
  .meta({ id: 'HouseListItem' }) satisfies z.ZodType<HouseListItem>;

/** The public list and the administrators' waiting list. */
export const houseListPageSchema = pageSchema(houseListItemSchema, { totals: true, pageable: false }).meta({ id: 'HouseListPage' });
/** The author's drafts and the caller's scraps (the spec shows `pageable` there). */
export const houseListPageableSchema = pageSchema(houseListItemSchema, { totals: true, pageable: true }).meta({ id: 'HouseListPageWithPageable' });

export const houseDetailSchema = z
  .object({
    houseId: z.number().int(),
    houseType: houseTypeAnswer,
    rentalType,
    city: z.string(),
    detail: z.string(),
    zipCode: z.string(),
    size: z.string(),
    purpose: z.string(),
    floorNum: z.number().int(),
    contact: z.string(),
    createdDate: z.string(),
    price: z.number(),
    monthlyPrice: z.number(),
    agentName: z.string().nullable(),
    agentDetail: z.string().optional().meta({ description: '중개사 상세 설명 (일반 텍스트); 없으면 없음' }),
    title: z.string(),
    code: z.string(),
    imageUrls: z.array(z.string()),
    tmpYn: z.boolean(),
    recommendedTag,
    recommendedTagName,
    nickName: z.string(),
    userType: z.enum(['NONE', 'AGENT']),
    createdAt: isoTimestampSchema,
    isCompleted: z.boolean(),
    isScraped: z.boolean(),
    latitude: z.number().nullable().meta({ description: '위도 (WGS84); 아직 모르면 null' }),
    longitude: z.number().nullable().meta({ description: '경도 (WGS84); 아직 모르면 null' }),
    moderation: z
      .object({
        state: z.enum(['REJECTED', 'REMOVED', 'REPORT_DISMISSED']),
        reason: z.string().nullable(),
        decidedAt: isoTimestampSchema.nullable(),
      })
      .optional()
      .meta({
        id: 'HouseModeration',
        description: '작성자와 관리자에게만: 관리자의 결정 (REJECTED 승인 거절, REMOVED 신고로 삭제, REPORT_DISMISSED 신고 기각)과 사유',
      }),
  })
  .meta({ id: 'HouseListingDetail' }) satisfies z.ZodType<HouseDetail>;

export const houseMapItemSchema = houseListItemSchema
  .extend({ latitude: z.number(), longitude: z.number() })
  .meta({ id: 'HouseMapItem' }) satisfies z.ZodType<HouseMapItem>;

export const houseMapPageSchema = pageSchema(houseMapItemSchema, { totals: true, pageable: false }).meta({ id: 'HouseMapPage' });

export const houseNearItemSchema = houseMapItemSchema
  .extend({ distanceKm: z.number().min(0).meta({ description: '기준점에서의 거리 (km, 미터 단위로 반올림)' }) })
  .meta({ id: 'HouseNearItem' }) satisfies z.ZodType<HouseNearItem>;

export const houseNearPageSchema = pageSchema(houseNearItemSchema, { totals: true, pageable: false }).meta({ id: 'HouseNearPage' });

export const houseClustersSchema = z
  .array(
    z.object({
      latitude: z.number().meta({ description: '칸에 있는 매물의 평균 위도' }),
      longitude: z.number().meta({ description: '칸에 있는 매물의 평균 경도' }),
      count: z.number().int().min(1),
    }) satisfies z.ZodType<HouseCluster>,
  )
  .meta({ id: 'HouseClusters' });

export const regionCountsSchema = z
  .array(
    z.object({
      province: z.string(),
      count: z.number().int().min(0),
      counties: z.array(z.object({ county: z.string(), count: z.number().int().min(0) })),
    }) satisfies z.ZodType<RegionCount>,
  )
  .meta({ id: 'HouseRegionCounts' });

export const nearbyHousesSchema = z.array(houseNearItemSchema).max(4).meta({ id: 'HouseNearbyList' });

export const houseAgentItemSchema = z
  .object({
    houseId: z.number().int(),
    houseType: houseTypeAnswer,
    rentalType,
    city: z.string(),
    title: z.string(),
    imageUrl: z.string().nullable(),
    dealState: z.enum(DealStates),
    dealStateName: z.enum(Object.values(DealStateNames) as [HouseAgentItem['dealStateName'], ...HouseAgentItem['dealStateName'][]]),
  })
  .meta({ id: 'HouseAgentItem' }) satisfies z.ZodType<HouseAgentItem>;

const ownCountSchema = z.object({
  all: z.number().int().min(0),
  applying: z.number().int().min(0),
  ongoing: z.number().int().min(0),
  completed: z.number().int().min(0),
});

export const ownListPageSchema = z
  .intersection(pageSchema(houseAgentItemSchema, { totals: true, pageable: false }), z.object({ count: ownCountSchema }))
  .meta({ id: 'HouseAgentPage' }) satisfies z.ZodType<OwnListPage>;

export const adminReportItemSchema = z
  .object({
    houseId: z.number().int(),
    title: z.string(),
    authorId: z.number().int(),
    nickName: z.string(),
    reportCount: z.number().int().min(0),
    lastReportedAt: isoTimestampSchema.nullable(),
    status: z.enum(ReportStatuses),
    reports: z.array(
      z.object({
        reportType: z.enum(ReportTypes),
        reportTypeName: z.enum(Object.values(ReportTypeNames) as [string, ...string[]]),
        reportReason: z.string(),
        reporterNickName: z.string(),
        createdAt: isoTimestampSchema,
      }),
    ),
  })
  .meta({ id: 'HouseAdminReportItem' }) satisfies z.ZodType<AdminReportItem>;

export const adminReportPageSchema = pageSchema(adminReportItemSchema, { totals: true, pageable: false }).meta({ id: 'HouseAdminReportPage' });

const countsBy = <const T extends readonly [string, ...string[]]>(keys: T) =>
  z.object(Object.fromEntries(keys.map((key) => [key, z.number().int().min(0)])) as Record<T[number], z.ZodNumber>);

export const bulkOutcomesSchema = z
  .array(
    z
      .object({
        id: z.number().int(),
        code: z.string().meta({ description: 'SUCCESS 또는 그 매물 하나만 실패한 오류 코드 (C0001, H0004 등)' }),
        message: z.string(),
      })
      .meta({ id: 'BulkOutcome' }),
  )
  .meta({ description: '요청한 id마다 하나, 요청 순서대로' }) satisfies z.ZodType<BulkOutcome[]>;

export const myReportsSchema = z
  .array(
    z
      .object({
        houseId: z.number().int(),
        title: z.string(),
        reportType: z.enum(ReportTypes),
        reportReason: z.string(),
        state: z.enum(MyReportStates).meta({ description: 'RECEIVED (처리 대기), REMOVED (게시글 삭제), DISMISSED (기각)' }),
        note: z.string().nullable().meta({ description: '관리자의 처리 메모; 없으면 null' }),
        createdAt: isoTimestampSchema,
        decidedAt: isoTimestampSchema.nullable(),
      })
      .meta({ id: 'MyHouseReport' }),
  )
  .meta({ description: '내 신고, 최근 신고순 (최대 100건)' }) satisfies z.ZodType<MyReportItem[]>;

export const houseStatsSchema = z
  .object({
    total: z.number().int().min(0),
    byDealState: countsBy(DealStates),
    byRentalType: countsBy(RentalTypes),
    byRegion: z.array(z.object({ region: z.string(), count: z.number().int().min(0) })),
    reportedOpen: z.number().int().min(0),
  })
  .meta({ id: 'HouseStats' }) satisfies z.ZodType<HouseStats>;
