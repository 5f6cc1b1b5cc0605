/**
 * Issue 38: what matching one published listing against the saved searches costs, counted in comparisons (a
 * saved search's conditions checked against the listing), not in time alone: the machine this runs on is
 * shared, so the figures to read are the ratios. Builds `--searches` saved searches (default 100,000) spread
 * over the regions, rental types and other conditions a member can save, indexes them by the keys the service
 * stores (`matchKeys`: province × rental type, `*` for either left open; services/notifications/src/domain/
 * matching.ts), then matches `--listings` random listings and prints the candidates compared per listing
 * against the naive scan (every search), and the time both take. The store serves the same look-up from its
 * multikey `matchKeys` index (`matchingMembers`), so the candidates are also what the store returns.
 *
 *   npx tsx scripts/bench-alerts.ts [--searches 100000] [--listings 2000] [--open 0.02]
 *
 * `--open` is the share of searches that name neither a region nor a rental type: every listing is compared
 * with those, whatever the index.
 */
import { listingKeys, matches, SearchIndex, type PublishedListing } from '../services/notifications/src/domain/matching';
import { CurrentProvinces } from '../events/src';
import { HouseTypes, RecommendedTags, RegionValues, RentalTypes } from '../services/notifications/src/domain/vocabulary';
import type { SearchConditions } from '../services/notifications/src/models';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SEARCHES = arg('searches', 100_000);
const LISTINGS = arg('listings', 2_000);
const OPEN = arg('open', 0.02);

// A fixed seed: every run compares the same searches and listings.
let seed = 38;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const regionValues = Object.keys(RegionValues);

type Search = SearchConditions & { alert: boolean; id: number };

function randomSearch(id: number): Search {
  const open = random() < OPEN;
  const search: Search = { id, alert: random() < 0.9 };
  if (!open) {
    if (random() < 0.9) search.province = pick(regionValues);
    if (random() < 0.7 || !search.province) search.rentalType = pick(RentalTypes);
  }
  if (random() < 0.3) search.houseType = pick(HouseTypes);
  if (random() < 0.2) search.recommendedTag = pick(RecommendedTags);
  if (random() < 0.5) search.maxPrice = Math.round(5_000 + random() * 50_000);
  if (random() < 0.1) Object.assign(search, { latitude: 35 + random() * 3, longitude: 126.5 + random() * 2.5, radiusKm: 5 + random() * 30 });
  return search;
}

function randomListing(houseId: number): PublishedListing {
  return {
    houseId,
    authorId: 1,
    rentalType: pick(RentalTypes),
    dealState: 'ONGOING',
    houseType: pick(HouseTypes),
    recommendedTag: [pick(RecommendedTags)],
    price: Math.round(1_000 + random() * 60_000),
    province: pick(CurrentProvinces),
    county: null,
    latitude: 34 + random() * 4,
    longitude: 126 + random() * 3,
  };
}

const searches = Array.from({ length: SEARCHES }, (_, i) => randomSearch(i + 1));
const index = new SearchIndex<Search>();
const built = process.hrtime.bigint();
for (const search of searches) index.add(search);
const buildMs = Number(process.hrtime.bigint() - built) / 1e6;
const listings = Array.from({ length: LISTINGS }, (_, i) => randomListing(i + 1));

// Warm-up of both loops (the JIT), so neither pays for it in the measured run.
for (const listing of listings.slice(0, 100)) {
  for (const search of index.candidates(listing)) matches(search, listing);
  for (const search of searches) matches(search, listing);
}

let indexedComparisons = 0;
let indexedMatches = 0;
let maxCandidates = 0;
let started = process.hrtime.bigint();
for (const listing of listings) {
  const candidates = index.candidates(listing);
  maxCandidates = Math.max(maxCandidates, candidates.length);
  for (const search of candidates) {
    indexedComparisons++;
    if (search.alert && matches(search, listing)) indexedMatches++;
  }
}
const indexedMs = Number(process.hrtime.bigint() - started) / 1e6;

let scanComparisons = 0;
let scanMatches = 0;
started = process.hrtime.bigint();
for (const listing of listings) {
  for (const search of searches) {
    scanComparisons++;
    if (search.alert && matches(search, listing)) scanMatches++;
  }
}
const scanMs = Number(process.hrtime.bigint() - started) / 1e6;

const perListing = indexedComparisons / LISTINGS;
console.log(`saved searches: ${SEARCHES.toLocaleString('en')} (${Math.round(OPEN * 100)}% name neither region nor rental type), listings matched: ${LISTINGS}`);
console.log(`keys a listing asks for: ${listingKeys(listings[0]).length}; index built in ${buildMs.toFixed(0)} ms`);
console.log(
  `indexed: ${perListing.toFixed(0)} comparisons per listing on average (max ${maxCandidates}), ${((perListing / SEARCHES) * 100).toFixed(2)}% of the searches; ${(indexedMs / LISTINGS).toFixed(3)} ms per listing`,
);
console.log(`scan:    ${(scanComparisons / LISTINGS).toFixed(0)} comparisons per listing; ${(scanMs / LISTINGS).toFixed(3)} ms per listing`);
console.log(`ratio:   ${(scanComparisons / indexedComparisons).toFixed(1)}x fewer comparisons, ${(scanMs / indexedMs).toFixed(1)}x less time`);
if (indexedMatches !== scanMatches) {
  console.error(`MISMATCH: the index found ${indexedMatches} matches, the scan ${scanMatches}`);
  process.exit(1);
}
console.log(`same matches both ways: ${indexedMatches.toLocaleString('en')}`);
