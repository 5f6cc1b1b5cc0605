import { projectedAuthorsOf, toIsoOffset, UNKNOWN_NICKNAME, type ProjectedUser } from '@binzip/shared';
import { thumbnailUrlOf } from '@binzip/shared/media';
import type { Model } from 'mongoose';
import type { DealState, HouseDoc, ListingContent } from '../models';
import { DealStateNames, tagNamesOf, type HouseType } from './vocabulary';

/** What the renderers need to know about authors: nickname and type from the accounts projection. */
export type Authors = Map<number, Pick<ProjectedUser, 'nickName' | 'userType'>>;

/** The authors of some listings, through the projection's memory of its users (`projectedAuthorsOf`). */
export async function authorsOf(users: Model<ProjectedUser>, houses: readonly Pick<HouseDoc, 'authorId'>[]): Promise<Authors> {
  return projectedAuthorsOf(
    users,
    houses.map((h) => h.authorId),
  );
}

/** `houseType` when the listing has one: answers leave it out otherwise, as they were before it existed. */
const houseTypeOf = (house: Pick<HouseDoc, 'houseType'>): { houseType?: HouseType } => (house.houseType ? { houseType: house.houseType as HouseType } : {});

/** List items show the first picture's thumbnail (for our own pictures; other URLs as they are); details the full ones. */
const thumbnail = (house: Pick<HouseDoc, 'imageUrls'>): string | null => thumbnailUrlOf(house.imageUrls[0] ?? null);

/**
 * The fields a list item is made of: lists read only these (the description's HTML in `code` is most of a
 * listing's bytes, read, sent and decoded for nothing in a list).
 */
export const LIST_ITEM_FIELDS = {
  rentalType: 1,
  city: 1,
  price: 1,
  monthlyPrice: 1,
  authorId: 1,
  createdAt: 1,
  dealState: 1,
  imageUrls: 1,
  title: 1,
  recommendedTag: 1,
  houseType: 1,
} as const;

/** A listing as lists read it (`LIST_ITEM_FIELDS`). */
export type ListedHouse = Pick<HouseDoc, '_id' | keyof typeof LIST_ITEM_FIELDS>;

export interface HouseListItem {
  houseId: number;
  houseType?: HouseType;
  rentalType: string;
  city: string;
  price: number;
  monthlyPrice: number;
  nickName: string;
  createdAt: string;
  isCompleted: boolean;
  imageUrl: string | null;
  title: string;
  recommendedTag: string[];
  recommendedTagName: string[];
}

export function toListItem(house: ListedHouse, authors: Authors): HouseListItem {
  return {
    houseId: house._id,
    ...houseTypeOf(house),
    rentalType: house.rentalType,
    city: house.city,
    price: house.price,
    monthlyPrice: house.monthlyPrice,
    nickName: authors.get(house.authorId)?.nickName ?? UNKNOWN_NICKNAME,
    createdAt: toIsoOffset(house.createdAt),
    isCompleted: house.dealState === 'COMPLETED',
    imageUrl: thumbnail(house),
    title: house.title,
    recommendedTag: house.recommendedTag,
    recommendedTagName: tagNamesOf(house.recommendedTag),
  };
}

/** The spec's author type is `NONE` or `AGENT`: administrators (WEB, SERVER) are not agents. */
const authorTypeOf = (userType: string): 'NONE' | 'AGENT' => (userType === 'AGENT' ? 'AGENT' : 'NONE');

/** The spec's listing detail. */
export interface HouseDetail extends Omit<ListingContent, 'houseType' | 'agentDetail'> {
  houseId: number;
  houseType?: HouseType;
  /** The agent's description, when there is one. */
  agentDetail?: string;
  tmpYn: boolean;
  recommendedTagName: string[];
  nickName: string;
  userType: 'NONE' | 'AGENT';
  createdAt: string;
  isCompleted: boolean;
  isScraped: boolean;
  /** The listing's point (issue 39), null while unknown. */
  latitude: number | null;
  longitude: number | null;
  /** For its author and administrators only: what the administrators decided and why (issue 40). */
  moderation?: HouseModeration;
}

export interface HouseModeration {
  /** REJECTED (not approved), REMOVED (taken down after a report), REPORT_DISMISSED (reported, found fine). */
  state: 'REJECTED' | 'REMOVED' | 'REPORT_DISMISSED';
  reason: string | null;
  /** When a report was decided; null for a rejection (its time is in the audit trail). */
  decidedAt: string | null;
}

export function toDetail(house: HouseDoc, authors: Authors, isScraped: boolean): HouseDetail {
  const author = authors.get(house.authorId);
  return {
    houseId: house._id,
    ...houseTypeOf(house),
    rentalType: house.rentalType,
    city: house.city,
    detail: house.detail,
    zipCode: house.zipCode,
    size: house.size,
    purpose: house.purpose,
    floorNum: house.floorNum,
    contact: house.contact,
    createdDate: house.createdDate,
    price: house.price,
    monthlyPrice: house.monthlyPrice,
    agentName: house.agentName,
    ...(house.agentDetail ? { agentDetail: house.agentDetail } : {}),
    title: house.title,
    code: house.code,
    imageUrls: house.imageUrls,
    tmpYn: house.tmpYn,
    recommendedTag: house.recommendedTag,
    recommendedTagName: tagNamesOf(house.recommendedTag),
    nickName: author?.nickName ?? UNKNOWN_NICKNAME,
    userType: authorTypeOf(author?.userType ?? house.authorType),
    createdAt: toIsoOffset(house.createdAt),
    isCompleted: house.dealState === 'COMPLETED',
    isScraped,
    latitude: house.latitude ?? null,
    longitude: house.longitude ?? null,
  };
}

/** An item of the author's own (agent) list. */
export interface HouseAgentItem {
  houseId: number;
  houseType?: HouseType;
  rentalType: string;
  city: string;
  title: string;
  imageUrl: string | null;
  dealState: DealState;
  dealStateName: (typeof DealStateNames)[DealState];
}

export function toAgentItem(house: HouseDoc): HouseAgentItem {
  const dealState = house.dealState ?? 'APPLYING';
  return {
    houseId: house._id,
    ...houseTypeOf(house),
    rentalType: house.rentalType,
    city: house.city,
    title: house.title,
    imageUrl: thumbnail(house),
    dealState,
    dealStateName: DealStateNames[dealState],
  };
}
