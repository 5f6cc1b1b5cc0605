import { FormerProvinceNames } from '@binzip/events';
import { ProvinceNames } from './vocabulary';

/**
 * Places of listings (issue 39): WGS84 points, the grid keys that index them, the province and county of an
 * address, and distances. No geospatial operator is used (the local store has none): a point is indexed by
 * its grid cells, one per level, in the multikey `geoCells` ({listed, geoCells, updatedAt, _id}), and exact
 * distances are computed here.
 */

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

export interface Box {
  south: number;
  west: number;
  north: number;
  east: number;
}

/** Where a client-given point must lie (the issue: latitude 33–39, longitude 124–132). */
export const KOREA: Box = { south: 33, west: 124, north: 39, east: 132 };

export const inBox = (box: Box, p: GeoPoint): boolean =>
  p.latitude >= box.south && p.latitude <= box.north && p.longitude >= box.west && p.longitude <= box.east;

export const inKorea = (p: GeoPoint): boolean => inBox(KOREA, p);

// ---------------------------------------------------------------------------------------------------------
// The grid

/**
 * Grid levels counted as web-map zoom levels: a cell of level z is 360 / 2^(z+2) degrees on each side, a
 * quarter of a map tile's width at zoom z (level 6: 1.41°, about 30 cells cover the country; each level halves
 * the cell). Every located listing stores its cell at each of these levels.
 */
export const MIN_GRID_LEVEL = 4;
export const MAX_GRID_LEVEL = 16;
export const GRID_LEVELS = Array.from({ length: MAX_GRID_LEVEL - MIN_GRID_LEVEL + 1 }, (_, i) => MIN_GRID_LEVEL + i);

export const cellSize = (level: number): number => 360 / 2 ** (level + 2);

const rowOf = (level: number, latitude: number): number => Math.floor((latitude + 90) / cellSize(level));
const columnOf = (level: number, longitude: number): number => Math.floor((longitude + 180) / cellSize(level));
const key = (level: number, row: number, column: number): string => `${level}:${row}:${column}`;

/** The cell keys of a point, one per grid level (what `geoCells` stores). */
export const gridCells = (p: GeoPoint): string[] => GRID_LEVELS.map((level) => key(level, rowOf(level, p.latitude), columnOf(level, p.longitude)));

/** How many cells of `level` cover the box. */
export function cellCount(level: number, box: Box): number {
  return (rowOf(level, box.north) - rowOf(level, box.south) + 1) * (columnOf(level, box.east) - columnOf(level, box.west) + 1);
}

/** The part of a box where listings can be (points lie in Korea), or undefined when they do not meet. */
export function clampToKorea(box: Box): Box | undefined {
  const clamped = {
    south: Math.max(box.south, KOREA.south),
    west: Math.max(box.west, KOREA.west),
    north: Math.min(box.north, KOREA.north),
    east: Math.min(box.east, KOREA.east),
  };
  return clamped.south > clamped.north || clamped.west > clamped.east ? undefined : clamped;
}

/** Most cells a box query names (an `$in` of point ranges on the index). */
export const MAX_COVER_CELLS = 48;

/**
 * The cells covering a box at the finest level (at most `finest`) whose cover has at most `MAX_COVER_CELLS`
 * cells: the `$in` that bounds a box query on the index. The exact box is checked besides.
 */
export function coverBox(box: Box, finest = MAX_GRID_LEVEL): { level: number; cells: string[] } {
  let level = Math.max(MIN_GRID_LEVEL, Math.min(finest, MAX_GRID_LEVEL));
  while (level > MIN_GRID_LEVEL && cellCount(level, box) > MAX_COVER_CELLS) level -= 1;
  const cells: string[] = [];
  for (let row = rowOf(level, box.south); row <= rowOf(level, box.north); row += 1) {
    for (let column = columnOf(level, box.west); column <= columnOf(level, box.east); column += 1) cells.push(key(level, row, column));
  }
  return { level, cells };
}

// ---------------------------------------------------------------------------------------------------------
// Distances

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Great-circle distance in km (haversine). */
export function distanceKm(a: GeoPoint, b: GeoPoint): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The box around a circle (a little wider than the circle, never narrower). */
export function boxAround(center: GeoPoint, radiusKm: number): Box {
  const dLat = radiusKm / 110.574 + 1e-6;
  const dLon = radiusKm / (111.32 * Math.max(0.01, Math.cos(rad(Math.min(89, Math.abs(center.latitude) + dLat))))) + 1e-6;
  return { south: center.latitude - dLat, west: center.longitude - dLon, north: center.latitude + dLat, east: center.longitude + dLon };
}

/** Distances are answered to the metre. */
export const roundKm = (km: number): number => Math.round(km * 1000) / 1000;

// ---------------------------------------------------------------------------------------------------------
// Provinces and counties

/** Longest names first, so `강원특별자치도` is never read as a longer text starting with `강원도`. */
const PROVINCES_LONGEST_FIRST = [...ProvinceNames].sort((a, b) => b.length - a.length);

export interface Region {
  /** The current province-level name, or null when the address starts with none. */
  province: string | null;
  /** The city, county or district (시, 군, 구) after it, or null (Sejong has none). */
  county: string | null;
}

/** The province and county an address (`city`) names: `강원도 강릉시 주문진읍` -> 강원특별자치도, 강릉시. */
export function regionOf(city: string): Region {
  const text = city.trim();
  const name = PROVINCES_LONGEST_FIRST.find((p) => text.startsWith(p));
  if (!name) return { province: null, county: null };
  const next = text.slice(name.length).trim().split(/\s+/)[0] ?? '';
  return { province: FormerProvinceNames[name] ?? name, county: /^[가-힣]{1,10}[시군구]$/.test(next) ? next : null };
}

/**
 * Approximate centres and bounds of the provinces (islands included: Baengnyeong, Ulleung and Dokdo, Marado).
 * The local geocoder places addresses from the centres; every geocoder's answer must fall inside the bounds of
 * the province the address names, so a point in the sea or in another country is refused.
 */
export const PROVINCE_PLACES: Record<string, { centre: GeoPoint; bounds: Box }> = {
  서울특별시: { centre: { latitude: 37.5665, longitude: 126.978 }, bounds: { south: 37.41, west: 126.75, north: 37.72, east: 127.2 } },
  부산광역시: { centre: { latitude: 35.1796, longitude: 129.0756 }, bounds: { south: 34.87, west: 128.75, north: 35.4, east: 129.32 } },
  대구광역시: { centre: { latitude: 35.8714, longitude: 128.6014 }, bounds: { south: 35.59, west: 128.34, north: 36.02, east: 128.78 } },
  인천광역시: { centre: { latitude: 37.4563, longitude: 126.7052 }, bounds: { south: 36.9, west: 124.5, north: 38.0, east: 126.8 } },
  광주광역시: { centre: { latitude: 35.1595, longitude: 126.8526 }, bounds: { south: 35.05, west: 126.63, north: 35.26, east: 127.02 } },
  대전광역시: { centre: { latitude: 36.3504, longitude: 127.3845 }, bounds: { south: 36.18, west: 127.24, north: 36.5, east: 127.56 } },
  울산광역시: { centre: { latitude: 35.5384, longitude: 129.3114 }, bounds: { south: 35.32, west: 128.96, north: 35.73, east: 129.47 } },
  세종특별자치시: { centre: { latitude: 36.48, longitude: 127.289 }, bounds: { south: 36.4, west: 127.13, north: 36.74, east: 127.41 } },
  경기도: { centre: { latitude: 37.4138, longitude: 127.5183 }, bounds: { south: 36.89, west: 126.36, north: 38.3, east: 127.86 } },
  강원특별자치도: { centre: { latitude: 37.8228, longitude: 128.1555 }, bounds: { south: 37.02, west: 127.08, north: 38.62, east: 129.37 } },
  충청북도: { centre: { latitude: 36.6357, longitude: 127.4917 }, bounds: { south: 35.99, west: 127.27, north: 37.27, east: 128.66 } },
  충청남도: { centre: { latitude: 36.5184, longitude: 126.8 }, bounds: { south: 35.97, west: 125.9, north: 37.07, east: 127.65 } },
  전북특별자치도: { centre: { latitude: 35.7175, longitude: 127.153 }, bounds: { south: 35.28, west: 126.0, north: 36.16, east: 127.93 } },
  전라남도: { centre: { latitude: 34.8679, longitude: 126.991 }, bounds: { south: 33.9, west: 125.0, north: 35.5, east: 127.9 } },
  경상북도: { centre: { latitude: 36.4919, longitude: 128.8889 }, bounds: { south: 35.56, west: 127.8, north: 37.56, east: 131.9 } },
  경상남도: { centre: { latitude: 35.4606, longitude: 128.2132 }, bounds: { south: 34.45, west: 127.57, north: 35.92, east: 129.23 } },
  제주특별자치도: { centre: { latitude: 33.4996, longitude: 126.5312 }, bounds: { south: 33.1, west: 126.1, north: 34.0, east: 127.0 } },
};

/**
 * Whether a geocoder's point is believable for an address: inside Korea, and inside the bounds of the province
 * the address names (when it names one). Returns the reason when not.
 */
export function implausiblePoint(point: GeoPoint, city: string): string | undefined {
  if (!Number.isFinite(point.latitude) || !Number.isFinite(point.longitude)) return 'not a number';
  if (!inKorea(point)) return `outside Korea (${point.latitude}, ${point.longitude})`;
  const { province } = regionOf(city);
  const place = province ? PROVINCE_PLACES[province] : undefined;
  if (place && !inBox(place.bounds, point)) return `outside ${province} (${point.latitude}, ${point.longitude}): in the sea or another region`;
  return undefined;
}
