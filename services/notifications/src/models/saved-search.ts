import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/** The conditions of a saved search (관심 조건, issue 38), as the member gave them. */
export interface SearchConditions {
  province?: string | null;
  county?: string | null;
  rentalType?: string | null;
  dealState?: string | null;
  houseType?: string | null;
  recommendedTag?: string | null;
  minPrice?: number | null;
  maxPrice?: number | null;
  south?: number | null;
  west?: number | null;
  north?: number | null;
  east?: number | null;
  latitude?: number | null;
  longitude?: number | null;
  radiusKm?: number | null;
}

export interface SavedSearchDoc extends SearchConditions {
  _id: number;
  userId: number;
  name: string;
  alert: boolean;
  /**
   * What a published listing must carry to be compared with this search at all (domain/matching.ts
   * `searchKeys`): one key per province it stands for and its rental type, `*` for either left open. Empty when
   * `alert` is off, so the match index never returns it.
   */
  matchKeys: string[];
  createdAt: Date;
  updatedAt: Date;
}

const num = { type: Number, default: null };
const str = { type: String, default: null };

const savedSearchSchema = new Schema<SavedSearchDoc>(
  {
    _id: { type: Number, required: true },
    userId: { type: Number, required: true },
    name: { type: String, required: true },
    province: str,
    county: str,
    rentalType: str,
    dealState: str,
    houseType: str,
    recommendedTag: str,
    minPrice: num,
    maxPrice: num,
    south: num,
    west: num,
    north: num,
    east: num,
    latitude: num,
    longitude: num,
    radiusKm: num,
    alert: { type: Boolean, required: true },
    matchKeys: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'saved_searches', minimize: false },
);

// A member's searches in the order saved (and the count of the 20 allowed).
savedSearchSchema.index({ userId: 1, _id: 1 });
// The match index: a listing asks for its four keys, never for every search (multikey).
savedSearchSchema.index({ matchKeys: 1 });

export const savedSearchModel = (connection: Connection): Model<SavedSearchDoc> => registerModel(connection, 'SavedSearch', savedSearchSchema);
