import { absentQueryValue, idParams, idString, nonBlankText, pageSchema, queryBoolean, querySize, type FieldLabels } from '@binzip/shared';
import { z } from 'zod';
import type { FeedItem, FeedPage } from '../domain/feed';
import type { InboxPage, NotificationItem } from '../domain/inbox';
import type { Preferences } from '../domain/preferences';
import type { PushSubscriptionInput } from '../domain/push';
import type { SavedSearchInput, SavedSearchItem } from '../domain/saved-searches';
import { HouseTypes, NoticeKinds, provincesOf, PublicDealStates, RecommendedTags, RentalTypes } from '../domain/vocabulary';

/** Korean names of the request fields: C0002 messages and the API document use them (shared `FieldLabels`). */
export const fieldLabels: FieldLabels = {
  read: '읽음 여부',
  id: '커서',
  size: '개수',
  notificationId: '알림 번호',
  savedSearchId: '관심 조건 번호',
  name: '이름',
  alert: '알림 여부',
  province: '지역',
  county: '시군구',
  rentalType: '거래 유형',
  dealState: '거래 상태',
  houseType: '매물 유형',
  recommendedTag: '추천 태그',
  minPrice: '최소 가격',
  maxPrice: '최대 가격',
  south: '남쪽 위도',
  west: '서쪽 경도',
  north: '북쪽 위도',
  east: '동쪽 경도',
  latitude: '위도',
  longitude: '경도',
  radiusKm: '반경(km)',
  kind: '알림 종류',
  days: '일수',
  COMMENT: '댓글 알림',
  REPLY: '답글 알림',
  LISTING_MATCH: '관심 조건 새 매물 알림',
  LISTING_APPROVED: '매물 승인 알림',
  LISTING_REJECTED: '매물 거절 알림',
  SCRAP_CHANGED: '스크랩 매물 변경 알림',
  endpoint: '푸시 주소',
  expirationTime: '만료 시각',
  keys: '암호화 키',
  p256dh: '공개 키(p256dh)',
  auth: '인증 비밀(auth)',
};

export const NOTIFICATION_PAGE_SIZE = 5;
export const NOTIFICATION_MAX_PAGE_SIZE = 50;

// Requests

export const listQuery = z.object({
  read: queryBoolean().meta({ description: '비우면 전체, `false` 안 읽음, `true` 읽음' }),
  // Empty on the first request, then the previous answer's nextId.
  id: z.preprocess(absentQueryValue, idString.optional()).meta({ description: '커서: 이전 응답의 nextId (첫 요청은 비움)' }),
  size: querySize(NOTIFICATION_PAGE_SIZE, NOTIFICATION_MAX_PAGE_SIZE),
});

export const notificationParams = idParams('notificationId');

// Responses (`satisfies` keeps them in step with what the domain returns)

export const notificationItemSchema = z
  .object({
    notification_id: z.number().int(),
    nick_name: z.string(),
    board_id: z.number().int(),
    board_title: z.string(),
    status: z.boolean(),
    comment: z.string(),
    comment_user: z.string(),
    type: z.enum(['board', 'record']),
  })
  .meta({ id: 'NotificationItem' }) satisfies z.ZodType<NotificationItem>;

export const inboxPageSchema = z
  .object({
    nextId: z.number().int().nullable(),
    notifications: pageSchema(notificationItemSchema, { totals: false, pageable: true }),
  })
  .meta({ id: 'NotificationInbox' }) satisfies z.ZodType<InboxPage>;

// Saved searches (issue 38)

/** Korea's bounding box, as houses' places (a circle's centre must lie in it). */
const KOREA = { south: 33, west: 124, north: 39, east: 132 };
/** Most distance a saved circle covers (houses' near query's bound). */
export const MAX_RADIUS_KM = 200;

const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);
const price = z.number().int().min(0).max(1_000_000_000_000);

/** A region word, a province's short or full name; anything else is refused naming the field (decisions.md's words). */
const region = z
  .string()
  .trim()
  .max(20)
  .refine((value) => provincesOf(value) !== undefined, {
    message: '알 수 없는 지역입니다. 수도권, 경상, 전라, 충청, 제주, 강원 또는 시·도 이름(예: 경기, 강원특별자치도)을 보내 주세요.',
  });

export const savedSearchBody = z
  .strictObject({
    name: nonBlankText(50).transform((s) => s.trim()),
    alert: z.boolean().default(true).meta({ description: '새 매물 알림을 받을지 (기본 true)' }),
    province: optional(region).meta({ description: '지역어(수도권, 경상, 전라, 충청, 제주, 강원) 또는 시·도 (예: 강원, 경기도)' }),
    county: optional(nonBlankText(20).transform((s) => s.trim())).meta({ description: '시·군·구 (예: 강릉시)' }),
    rentalType: optional(z.enum(RentalTypes)),
    dealState: optional(z.enum(PublicDealStates)),
    houseType: optional(z.enum(HouseTypes)),
    recommendedTag: optional(z.enum(RecommendedTags)),
    minPrice: optional(price),
    maxPrice: optional(price),
    south: optional(z.number().min(-90).max(90)),
    west: optional(z.number().min(-180).max(180)),
    north: optional(z.number().min(-90).max(90)),
    east: optional(z.number().min(-180).max(180)),
    latitude: optional(z.number().min(KOREA.south).max(KOREA.north)),
    longitude: optional(z.number().min(KOREA.west).max(KOREA.east)),
    radiusKm: optional(z.number().gt(0).max(MAX_RADIUS_KM)),
  })
  .superRefine((body, issue) => {
    const say = (path: string, message: string) => issue.addIssue({ code: 'custom', path: [path], message });
    if (body.minPrice !== undefined && body.maxPrice !== undefined && body.minPrice > body.maxPrice)
      say('maxPrice', `${fieldLabels.maxPrice} 값이 ${fieldLabels.minPrice}보다 작습니다.`);
    const box = [body.south, body.west, body.north, body.east];
    const circle = [body.latitude, body.longitude, body.radiusKm];
    if (box.some((v) => v !== undefined) && box.some((v) => v === undefined)) say('south', '상자는 south, west, north, east를 모두 보내야 합니다.');
    if (circle.some((v) => v !== undefined) && circle.some((v) => v === undefined)) say('latitude', '원은 latitude, longitude, radiusKm를 모두 보내야 합니다.');
    if (box.some((v) => v !== undefined) && circle.some((v) => v !== undefined)) say('latitude', '상자와 원 중 하나만 보낼 수 있습니다.');
    if (body.south !== undefined && body.north !== undefined && body.south > body.north)
      say('north', `${fieldLabels.north} 값이 ${fieldLabels.south}보다 작습니다.`);
    if (body.west !== undefined && body.east !== undefined && body.west > body.east) say('east', `${fieldLabels.east} 값이 ${fieldLabels.west}보다 작습니다.`);
  }) satisfies z.ZodType<SavedSearchInput>;

export const savedSearchParams = idParams('savedSearchId');

export const savedSearchItemSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    alert: z.boolean(),
    province: z.string().optional(),
    county: z.string().optional(),
    rentalType: z.string().optional(),
    dealState: z.string().optional(),
    houseType: z.string().optional(),
    recommendedTag: z.string().optional(),
    minPrice: z.number().optional(),
    maxPrice: z.number().optional(),
    south: z.number().optional(),
    west: z.number().optional(),
    north: z.number().optional(),
    east: z.number().optional(),
    latitude: z.number().optional(),
    longitude: z.number().optional(),
    radiusKm: z.number().optional(),
  })
  .meta({ id: 'SavedSearch' }) satisfies z.ZodType<SavedSearchItem>;

// The feed, preferences, statistics (issue 38)

export const feedQuery = z.object({
  kind: z.preprocess(absentQueryValue, z.enum(NoticeKinds).optional()).meta({ description: `알림 종류 (${NoticeKinds.join(', ')}); 비우면 전체` }),
  read: queryBoolean().meta({ description: '비우면 전체, `false` 안 읽음, `true` 읽음' }),
  id: z.preprocess(absentQueryValue, idString.optional()).meta({ description: '커서: 이전 응답의 nextId (첫 요청은 비움)' }),
  size: querySize(NOTIFICATION_PAGE_SIZE, NOTIFICATION_MAX_PAGE_SIZE),
});

export const feedItemSchema = z
  .object({
    notification_id: z.number().int(),
    kind: z.enum(NoticeKinds),
    status: z.boolean(),
    created_at: z.string(),
    nick_name: z.string().optional(),
    board_id: z.number().int().optional(),
    board_title: z.string().optional(),
    comment: z.string().optional(),
    comment_user: z.string().optional(),
    type: z.enum(['board', 'record']).optional(),
    house_id: z.number().int().optional(),
    house_title: z.string().optional(),
    saved_search_id: z.number().int().nullable().optional(),
    reason: z.string().nullable().optional(),
    price: z.number().nullable().optional(),
    deal_state: z.string().nullable().optional(),
  })
  .meta({ id: 'NotificationFeedItem' }) satisfies z.ZodType<FeedItem>;

export const feedPageSchema = z
  .object({
    nextId: z.number().int().nullable(),
    notifications: pageSchema(feedItemSchema, { totals: false, pageable: true }),
  })
  .meta({ id: 'NotificationFeed' }) satisfies z.ZodType<FeedPage>;

const kindSwitches = Object.fromEntries(NoticeKinds.map((kind) => [kind, z.boolean()])) as Record<(typeof NoticeKinds)[number], z.ZodBoolean>;

export const preferencesSchema = z.object(kindSwitches).meta({ id: 'NotificationPreferences' }) satisfies z.ZodType<Preferences>;

/** PUT: any of the kinds (the others keep their setting); an unknown kind is C0002. */
export const preferencesBody = z.strictObject(
  Object.fromEntries(NoticeKinds.map((kind) => [kind, z.boolean().optional()])) as Record<(typeof NoticeKinds)[number], z.ZodOptional<z.ZodBoolean>>,
);

export const alertStatsQuery = z.object({
  days: z
    .preprocess(
      (value) => absentQueryValue(value) ?? '14',
      z
        .string()
        .regex(/^\d{1,3}$/)
        .transform(Number)
        .pipe(z.number().int().min(1).max(90)),
    )
    .meta({ type: 'integer', minimum: 1, maximum: 90, default: 14, description: '오늘까지 며칠 (한국 시간)' }),
});

export const alertStatsSchema = z.object({ days: z.array(z.object({ date: z.string(), alerts: z.number().int() })) }).meta({ id: 'NotificationAlertStats' });

// Web Push (issue 38): the browser's PushSubscription JSON, as the browser writes it

const base64url = (bytes: number, message: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, message)
    .refine((text) => Buffer.from(text, 'base64url').length === bytes, message);

const pushEndpoint = z
  .string()
  .max(2_048)
  .refine((text) => URL.canParse(text) && new URL(text).protocol === 'https:', { message: '푸시 주소 값이 https 주소가 아닙니다.' });

export const pushSubscriptionBody = z.strictObject({
  endpoint: pushEndpoint,
  expirationTime: z.number().int().nonnegative().nullish().meta({ description: '브라우저가 알려 준 만료 시각 (밀리초, 없으면 null)' }),
  keys: z.strictObject({
    p256dh: base64url(65, '공개 키(p256dh) 값은 P-256 공개 키 65바이트의 base64url이어야 합니다.'),
    auth: base64url(16, '인증 비밀(auth) 값은 16바이트의 base64url이어야 합니다.'),
  }),
}) satisfies z.ZodType<PushSubscriptionInput>;

export const pushUnsubscribeBody = z.strictObject({ endpoint: pushEndpoint });

export const pushKeySchema = z
  .object({ publicKey: z.string().nullable().meta({ description: 'VAPID 공개 키 (applicationServerKey); 이 서버가 푸시를 보내지 않으면 null' }) })
  .meta({ id: 'NotificationPushKey' });
