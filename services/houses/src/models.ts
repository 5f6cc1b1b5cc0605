/**
 * What houses stores: one mongoose schema per collection, each registered on the service's connection, and
 * `housesModels(connection)`, the models by lower-case name that the context carries.
 */
import { addOutbox, registerModel, type OutboxEvent, projectedUserModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';
import { pictureModel } from '@binzip/shared/media';

/**
 * Where a saved listing stands. Drafts have no deal state yet (null) until they are saved.
 * APPLYING: waiting for an administrator; REJECTED: an administrator declined it.
 */
export const DealStates = ['APPLYING', 'ONGOING', 'COMPLETED', 'REJECTED'] as const;
export type DealState = (typeof DealStates)[number];

/** Where a listing's point came from: the author's write body, or the server's geocoder from the address. */
export const PointSources = ['CLIENT', 'GEOCODER'] as const;
export type PointSource = (typeof PointSources)[number];

/** The stored shape of a listing's content, identical for drafts and saved listings. */
export interface ListingContent {
  rentalType: string;
  city: string;
  detail: string;
  zipCode: string;
  size: string;
  purpose: string;
  floorNum: number;
  contact: string;
  createdDate: string;
  price: number;
  monthlyPrice: number;
  agentName: string | null;
  title: string;
  code: string;
  imageUrls: string[];
  recommendedTag: string[];
  /** LAND, HOUSE or FARM_HOUSE; absent (or null once cleared) on listings that never had one. */
  houseType?: string | null;
  /** An agent's free-text description of the office (plain text); absent or null when none. */
  agentDetail?: string | null;
}

export interface HouseDoc extends ListingContent {
  _id: number;
  authorId: number;
  /** The author's userType from the token at the last write; fallback when the projection lacks the user. */
  authorType: string;
  tmpYn: boolean;
  dealState: DealState | null;
  rejectReason: string | null;
  reported: boolean;
  deleted: boolean;
  /**
   * Derived: saved, approved (ONGOING or COMPLETED), not reported, not deleted. Kept on the document so
   * one equality leads every public-list index; every write recomputes it from the whole state.
   */
  listed: boolean;
  /** Administrators' report handling: OPEN while a report waits, CLOSED once handled, null if never reported. */
  reportStatus?: 'OPEN' | 'CLOSED' | null;
  /** The latest report's time (the administrators' report list is ordered by it). */
  lastReportedAt?: Date | null;
  /** Write counter: every state or content change increments it (writes are guarded by the state fields, see changeHouse). */
  rev: number;
  /**
   * The listing's place (issue 39; absent on listings stored before it until the start-up backfill). The point
   * is WGS84, null while unknown; `pointSource` says who gave it.
   */
  latitude?: number | null;
  longitude?: number | null;
  pointSource?: PointSource | null;
  /** The point's grid cell at each level (domain/places.ts `gridCells`), empty while unknown: the map index. */
  geoCells?: string[];
  /** The address (`city` and `detail`) the point, or the geocoding waiting for it, belongs to. */
  geoAddress?: string;
  /** When the geocoder is (next) asked for the point; null when nothing waits. */
  geocodeDueAt?: Date | null;
  /** Failed attempts since the address was last set (the back-off), and the last failure's reason. */
  geocodeAttempts?: number;
  geocodeError?: string | null;
  /** Derived from `city` on every write: the current province-level name and the county (regions' counts). */
  province?: string | null;
  county?: string | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  /**
   * An administrator's last decision on the listing (issue 40): REJECTED with the reject reason is `rejectReason`;
   * a report decision keeps its outcome and note here, so the author of a listing taken down reads why.
   */
  moderation?: { action: 'DISMISS' | 'REMOVE'; note: string | null; decidedAt: Date } | null;
  /**
   * The listing's events waiting for the relay, stored in the write that caused them: its own (domain/listing-events.ts,
   * issue 38) and the administrators' actions on it (`audit.houses`, issue 40).
   */
  pendingEvents?: OutboxEvent[];
}

const houseSchema = new Schema<HouseDoc>(
  {
    _id: { type: Number, required: true },
    authorId: { type: Number, required: true },
    authorType: { type: String, required: true },
    rentalType: { type: String, default: '' },
    city: { type: String, default: '' },
    detail: { type: String, default: '' },
    zipCode: { type: String, default: '' },
    size: { type: String, default: '' },
    purpose: { type: String, default: '' },
    floorNum: { type: Number, default: 0 },
    contact: { type: String, default: '' },
    createdDate: { type: String, default: '' },
    price: { type: Number, default: 0 },
    monthlyPrice: { type: Number, default: 0 },
    agentName: { type: String, default: null },
    title: { type: String, default: '' },
    code: { type: String, default: '' },
    imageUrls: { type: [String], default: [] },
    recommendedTag: { type: [String], default: [] },
    houseType: { type: String },
    agentDetail: { type: String },
    tmpYn: { type: Boolean, required: true },
    dealState: { type: String, default: null },
    rejectReason: { type: String, default: null },
    reported: { type: Boolean, default: false },
    deleted: { type: Boolean, default: false },
    listed: { type: Boolean, default: false },
    reportStatus: { type: String, default: null },
    lastReportedAt: { type: Date, default: null },
    rev: { type: Number, default: 0 },
    latitude: { type: Number, default: null },
    longitude: { type: Number, default: null },
    pointSource: { type: String, default: null },
    geoCells: { type: [String], default: [] },
    geoAddress: { type: String, default: '' },
    geocodeDueAt: { type: Date, default: null },
    geocodeAttempts: { type: Number, default: 0 },
    geocodeError: { type: String, default: null },
    province: { type: String, default: null },
    county: { type: String, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
    moderation: { type: Schema.Types.Mixed, default: null },
  },
  { versionKey: false, collection: 'houses', minimize: false },
);
addOutbox(houseSchema);

// Public list: `listed` equality first, then the filter, then the sort (newest update, id as tie-break).
houseSchema.index({ listed: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, rentalType: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, dealState: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, recommendedTag: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, city: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, houseType: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, authorId: 1, updatedAt: -1, _id: -1 });
// Places (issue 39): a box, a circle or a cluster query names the grid cells that cover it (one level, an `$in`
// of point ranges of this multikey index; the box list keeps the newest-update order); regions count per
// province and county from the second; the geocoding job finds the listings whose point is due.
houseSchema.index({ listed: 1, geoCells: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ listed: 1, province: 1, county: 1 });
houseSchema.index({ geocodeDueAt: 1 });
// The author's own lists (tmp-save, agent) and the administrator's waiting list.
houseSchema.index({ authorId: 1, tmpYn: 1, deleted: 1, updatedAt: -1, _id: -1 });
houseSchema.index({ dealState: 1, tmpYn: 1, deleted: 1, updatedAt: 1, _id: 1 });
// The administrators' statistics: counts of saved listings, in all and per rental type and region.
houseSchema.index({ tmpYn: 1, deleted: 1, rentalType: 1 });
houseSchema.index({ tmpYn: 1, deleted: 1, city: 1 });
// The administrators' report list.
houseSchema.index({ reportStatus: 1, lastReportedAt: -1, _id: -1 });

export const houseModel = (connection: Connection): Model<HouseDoc> => registerModel(connection, 'House', houseSchema);

/** The one rule for `listed`; every write that changes state sets it from this. */
export function isListed(house: Pick<HouseDoc, 'tmpYn' | 'dealState' | 'reported' | 'deleted'>): boolean {
  return !house.tmpYn && !house.reported && !house.deleted && (house.dealState === 'ONGOING' || house.dealState === 'COMPLETED');
}

export const ReportTypes = ['FAKE_SALE', 'ADVERTISING_BOARD', 'ETC'] as const;
export type ReportType = (typeof ReportTypes)[number];

export interface ReportDoc {
  houseId: number;
  userId: number;
  reportType: ReportType;
  reportReason: string;
  createdAt: Date;
  /** Set when an administrator handled the listing's reports (DISMISS or REMOVE); null while open. */
  closedAt?: Date | null;
  /** How the administrator decided (issue 40): REMOVED (the listing was taken down) or DISMISSED; null while open. */
  outcome?: 'REMOVED' | 'DISMISSED' | null;
  /** The administrator's note to the reporter and the author, when the decision had one. */
  note?: string | null;
  /** `houses.report.created`, published by the relay (the report is its own outbox). */
  pendingEvents?: OutboxEvent[];
}

const reportSchema = new Schema<ReportDoc>(
  {
    houseId: { type: Number, required: true },
    userId: { type: Number, required: true },
    reportType: { type: String, required: true },
    reportReason: { type: String, required: true },
    createdAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    outcome: { type: String, default: null },
    note: { type: String, default: null },
  },
  { versionKey: false, collection: 'reports' },
);

reportSchema.index({ houseId: 1, userId: 1 }, { unique: true });
// A listing's reports newest first (the administrators' report list), open or closed ones.
reportSchema.index({ houseId: 1, createdAt: -1, _id: -1 });
reportSchema.index({ houseId: 1, closedAt: 1, createdAt: -1, _id: -1 });
// A member's own reports, newest first (GET /api/v1/houses/report/mine).
reportSchema.index({ userId: 1, createdAt: -1, _id: -1 });
addOutbox(reportSchema);

export const reportModel = (connection: Connection): Model<ReportDoc> => registerModel(connection, 'Report', reportSchema);

export interface ScrapDoc {
  userId: number;
  houseId: number;
  createdAt: Date;
}

const scrapSchema = new Schema<ScrapDoc>(
  {
    userId: { type: Number, required: true },
    houseId: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'scraps' },
);

scrapSchema.index({ userId: 1, houseId: 1 }, { unique: true });
// A member's scraps, newest first (`_id` breaks ties, so it is in the index too).
scrapSchema.index({ userId: 1, createdAt: -1, _id: -1 });
// The members who scrapped one listing: told when its price or deal state changes (issue 38).
scrapSchema.index({ houseId: 1 });

export const scrapModel = (connection: Connection): Model<ScrapDoc> => registerModel(connection, 'Scrap', scrapSchema);

export type HousesModels = ReturnType<typeof housesModels>;

export function housesModels(connection: Connection) {
  return {
    houses: houseModel(connection),
    scraps: scrapModel(connection),
    reports: reportModel(connection),
    users: projectedUserModel(connection),
    /** Uploaded pictures (their files are in the picture store). */
    pictures: pictureModel(connection),
  };
}

/** Builds the indexes; the unique ones (scrap and report per user) must exist before writes rely on them. */
export async function initModels(models: HousesModels): Promise<void> {
  await Promise.all([models.houses.init(), models.scraps.init(), models.reports.init(), models.users.init(), models.pictures.init()]);
}
