import { createHash } from 'node:crypto';
import { PROVINCE_PLACES, regionOf, type GeoPoint } from './places';

/**
 * Finding a listing's point from its address. The server asks a geocoder in the background (domain/geocoding.ts),
 * never while a write waits; whatever a geocoder answers is checked before it is stored (`implausiblePoint`).
 */
export type GeocodeResult =
  | { kind: 'found'; point: GeoPoint }
  /** The geocoder knows no such address. */
  | { kind: 'not-found' }
  /** The geocoder could not answer (timeout, refused key, budget, nonsense): try again later. */
  | { kind: 'failed'; reason: string };

export interface Geocoder {
  readonly name: string;
  geocode(address: string): Promise<GeocodeResult>;
}

// ---------------------------------------------------------------------------------------------------------
// Local: deterministic, no network (tests and development)

/** Centres of some counties (시, 군) the local geocoder knows beside the provinces' (approximate). */
const COUNTY_CENTRES: Record<string, GeoPoint> = {
  강릉시: { latitude: 37.7519, longitude: 128.8761 },
  속초시: { latitude: 38.207, longitude: 128.5918 },
  춘천시: { latitude: 37.8813, longitude: 127.7298 },
  원주시: { latitude: 37.3422, longitude: 127.9202 },
  평창군: { latitude: 37.3708, longitude: 128.3903 },
  양양군: { latitude: 38.0754, longitude: 128.619 },
  홍천군: { latitude: 37.697, longitude: 127.8888 },
  정선군: { latitude: 37.3807, longitude: 128.6608 },
  영월군: { latitude: 37.1836, longitude: 128.4617 },
  수원시: { latitude: 37.2636, longitude: 127.0286 },
  가평군: { latitude: 37.8315, longitude: 127.5105 },
  양평군: { latitude: 37.4917, longitude: 127.4876 },
  청주시: { latitude: 36.6424, longitude: 127.489 },
  충주시: { latitude: 36.991, longitude: 127.9259 },
  공주시: { latitude: 36.4465, longitude: 127.119 },
  전주시: { latitude: 35.8242, longitude: 127.148 },
  남원시: { latitude: 35.4164, longitude: 127.3904 },
  여수시: { latitude: 34.7604, longitude: 127.6622 },
  순천시: { latitude: 34.9507, longitude: 127.4872 },
  목포시: { latitude: 34.8118, longitude: 126.3922 },
  담양군: { latitude: 35.3211, longitude: 126.9882 },
  경주시: { latitude: 35.8562, longitude: 129.2247 },
  안동시: { latitude: 36.5684, longitude: 128.7294 },
  포항시: { latitude: 36.019, longitude: 129.3435 },
  통영시: { latitude: 34.8544, longitude: 128.4331 },
  남해군: { latitude: 34.8376, longitude: 127.8924 },
  하동군: { latitude: 35.0672, longitude: 127.7513 },
  제주시: { latitude: 33.4996, longitude: 126.5312 },
  서귀포시: { latitude: 33.2541, longitude: 126.56 },
};

/** A stable number in [-1, 1) from a text and a salt. */
function hashUnit(text: string, salt: string): number {
  const digest = createHash('sha256').update(`${salt}\u0000${text}`).digest();
  return digest.readUInt32BE(0) / 2 ** 31 - 1;
}

/**
 * Places an address at its county's centre when the table knows the county, else at its province's centre, plus
 * a stable offset from the address's hash (up to about 3 km around a county, 15 km around a province), so the
 * same address always gets the same point and different addresses spread out. An address naming no province is
 * not found.
 */
export const localGeocoder: Geocoder = {
  name: 'local',
  geocode(address: string): Promise<GeocodeResult> {
    const { province, county } = regionOf(address);
    const place = province ? PROVINCE_PLACES[province] : undefined;
    if (!place) return Promise.resolve({ kind: 'not-found' });
    const countyCentre = county ? COUNTY_CENTRES[county] : undefined;
    const centre = countyCentre ?? place.centre;
    const spread = countyCentre ? 0.03 : 0.12;
    const normalized = address.trim().replace(/\s+/g, ' ');
    const point = {
      latitude: Math.round((centre.latitude + hashUnit(normalized, 'lat') * spread) * 1e6) / 1e6,
      longitude: Math.round((centre.longitude + hashUnit(normalized, 'lon') * spread) * 1e6) / 1e6,
    };
    return Promise.resolve({ kind: 'found', point });
  },
};

// ---------------------------------------------------------------------------------------------------------
// Kakao Local (https://developers.kakao.com/docs/latest/ko/local/dev-guide#address-coord)

export interface KakaoGeocoderOptions {
  /** The REST API key (`Authorization: KakaoAK <key>`). */
  key: string;
  /** Default `https://dapi.kakao.com`; tests point it at a local server speaking the same format. */
  baseUrl?: string;
  /** Each HTTP call's limit. */
  timeoutMs?: number;
  /** Further calls after a timeout, a refused connection or a 5xx (not after 401/403/429 or an answer). */
  retries?: number;
  /** Calls allowed per minute (the plan's quota, shared by nothing else in this process). */
  perMinute?: number;
  now?: () => number;
}

/** Kakao's answer to `GET /v2/local/search/address.json` (the parts read here). */
interface KakaoAddressAnswer {
  documents?: Array<{ x?: unknown; y?: unknown; address_name?: unknown }>;
}

/** A fixed one-minute window of calls. */
class MinuteBudget {
  private windowStart = 0;
  private used = 0;
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}
  take(): boolean {
    const now = this.now();
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now;
      this.used = 0;
    }
    if (this.used >= this.perMinute) return false;
    this.used += 1;
    return true;
  }
}

export class KakaoGeocoder implements Geocoder {
  readonly name = 'kakao';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly budget: MinuteBudget;

  constructor(private readonly options: KakaoGeocoderOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://dapi.kakao.com').replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 3_000;
    this.retries = options.retries ?? 2;
    this.budget = new MinuteBudget(options.perMinute ?? 600, options.now ?? Date.now);
  }

  async geocode(address: string): Promise<GeocodeResult> {
    let lastReason = 'no attempt';
    for (let attempt = 0; attempt <= this.retries; attempt += 1) {
      if (!this.budget.take()) return { kind: 'failed', reason: 'kakao: per-minute budget used up' };
      const outcome = await this.call(address);
      if (outcome.kind !== 'retry') return outcome;
      lastReason = outcome.reason;
    }
    return { kind: 'failed', reason: `${lastReason} (after ${this.retries + 1} attempts)` };
  }

  private async call(address: string): Promise<GeocodeResult | { kind: 'retry'; reason: string }> {
    const url = `${this.baseUrl}/v2/local/search/address.json?query=${encodeURIComponent(address)}&size=1`;
    let response: Response;
    try {
      response = await fetch(url, { headers: { Authorization: `KakaoAK ${this.options.key}` }, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const error = err as Error;
      const reason = error.name === 'TimeoutError' ? `kakao: no answer within ${this.timeoutMs} ms` : `kakao: ${error.message}`;
      return { kind: 'retry', reason };
    }
    const text = await response.text().catch(() => '');
    if (response.status === 401 || response.status === 403)
      return { kind: 'failed', reason: `kakao: key refused (HTTP ${response.status}: ${text.slice(0, 200)})` };
    if (response.status === 429) return { kind: 'failed', reason: 'kakao: quota exceeded (HTTP 429)' };
    if (response.status >= 500) return { kind: 'retry', reason: `kakao: HTTP ${response.status}` };
    if (response.status !== 200) return { kind: 'failed', reason: `kakao: HTTP ${response.status}: ${text.slice(0, 200)}` };
    let answer: KakaoAddressAnswer;
    try {
      answer = JSON.parse(text) as KakaoAddressAnswer;
    } catch {
      return { kind: 'failed', reason: 'kakao: answer is not JSON' };
    }
    if (!Array.isArray(answer.documents)) return { kind: 'failed', reason: 'kakao: answer without documents' };
    const first = answer.documents[0];
    if (!first) return { kind: 'not-found' };
    // Kakao sends x (longitude) and y (latitude) as decimal text.
    const longitude = Number(first.x);
    const latitude = Number(first.y);
    if (typeof first.x !== 'string' || typeof first.y !== 'string' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
      return { kind: 'failed', reason: `kakao: answer without a usable point (x=${String(first.x)}, y=${String(first.y)})` };
    }
    return { kind: 'found', point: { latitude, longitude } };
  }
}
