/**
 * Inserts N realistic, approved house listings (Korean cities, tags, prices) for benchmarks and demos.
 *
 *   npm run seed:houses -- --count 20000 [--authors 50] [--batch 1000] [--seed 42]
 *
 * Connects with MONGODB_URI / MONGODB_DB (default mongodb://127.0.0.1:27017, database `houses`).
 * Authors are written into the local `users` projection with ids from 1,000,000 up and version -1, so a
 * real `accounts.user.*` snapshot for the same id always replaces them.
 */
import { connectMongo } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { housesModels, initModels, isListed, type DealState, type HouseDoc } from '../services/houses/src/models';
import { RecommendedTags, RentalTypes } from '../services/houses/src/domain/vocabulary';
import { addressOf } from '../services/houses/src/domain/geocoding';
import { gridCells, PROVINCE_PLACES, regionOf } from '../services/houses/src/domain/places';

export const SEED_AUTHOR_BASE_ID = 1_000_000;

const PLACES: Array<[string, string[]]> = [
  ['서울특별시', ['강남구 역삼동', '마포구 망원동', '종로구 부암동', '은평구 진관동', '성북구 성북동']],
  ['부산광역시', ['해운대구 중동', '기장군 일광읍', '영도구 동삼동', '수영구 광안동']],
  ['대구광역시', ['수성구 범어동', '달성군 가창면', '동구 신암동']],
  ['인천광역시', ['강화군 길상면', '옹진군 영흥면', '중구 을왕동']],
  ['광주광역시', ['동구 지산동', '북구 담양읍']],
  ['대전광역시', ['유성구 봉명동', '대덕구 장동']],
  ['울산광역시', ['울주군 언양읍', '북구 강동동']],
  ['세종특별자치시', ['조치원읍 신흥리', '연동면 응암리']],
  ['경기도', ['가평군 설악면', '양평군 서종면', '파주시 탄현면', '여주시 강천면', '수원시 팔달구']],
  ['강원특별자치도', ['평창군 대관령면', '강릉시 사천면', '홍천군 서면', '정선군 고한읍']],
  ['충청북도', ['단양군 단양읍', '괴산군 청천면', '제천시 봉양읍']],
  ['충청남도', ['공주시 반포면', '태안군 안면읍', '서천군 한산면']],
  ['전북특별자치도', ['전주시 완산구', '무주군 설천면', '고창군 고창읍']],
  ['전라남도', ['담양군 창평면', '순천시 낙안면', '여수시 돌산읍', '해남군 송지면']],
  ['경상북도', ['경주시 양남면', '안동시 풍천면', '영덕군 강구면']],
  ['경상남도', ['남해군 삼동면', '하동군 악양면', '통영시 산양읍', '거제시 남부면']],
  ['제주특별자치도', ['서귀포시 성산읍', '제주시 애월읍', '제주시 구좌읍']],
];
const KINDS = ['한옥', '전원주택', '시골집', '농가주택', '빈집', '단독주택', '별장', '돌담집', '귀촌주택', '텃밭 딸린 집'];
const ADJECTIVES = ['햇살 좋은', '바다가 보이는', '조용한', '리모델링된', '마당 넓은', '산자락의', '계곡 옆', '정남향', '아담한', '오래된'];
const PURPOSES = ['주거용', '세컨드하우스', '농가주택', '주말주택', '숙박업 가능'];
const NICK_PREFIX = ['햇살', '바다', '산골', '들녘', '솔향', '한옥', '귀촌', '돌담', '노을', '별빛'];

/** Small deterministic PRNG (mulberry32) so a seed number reproduces a data set. */
export function randomSource(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeedOptions {
  count: number;
  authors?: number;
  batchSize?: number;
  seed?: number;
}

export async function seedHouses(connection: Connection, options: SeedOptions): Promise<{ inserted: number; firstId: number; lastId: number }> {
  const models = housesModels(connection);
  await initModels(models);
  const random = randomSource(options.seed ?? 42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
  const authorCount = Math.max(1, options.authors ?? 50);
  const batchSize = Math.max(1, options.batchSize ?? 1_000);
  // Points (issue 39) from a source of their own, so a seed number still gives the same listings otherwise: spread
  // over the inner part of the listing's province (some fall in the sea; a benchmark minds only the spread).
  const placeRandom = randomSource((options.seed ?? 42) + 7_919);
  const pointIn = (province: string) => {
    const { south, west, north, east } = PROVINCE_PLACES[regionOf(province).province ?? '']?.bounds ?? { south: 36, west: 127, north: 37, east: 128 };
    const inner = (low: number, high: number) => Math.round((low + (high - low) * (0.1 + 0.8 * placeRandom())) * 1e6) / 1e6;
    return { latitude: inner(south, north), longitude: inner(west, east) };
  };

  await models.users.bulkWrite(
    Array.from({ length: authorCount }, (_, i) => ({
      updateOne: {
        filter: { _id: SEED_AUTHOR_BASE_ID + i },
        update: {
          $setOnInsert: {
            userName: `seed${i}`,
            nickName: `${NICK_PREFIX[i % NICK_PREFIX.length]}부동산${i}`,
            userType: i % 5 === 0 ? 'NONE' : 'AGENT',
            authority: 'USER',
            status: 'ACTIVE',
            version: -1,
          },
        },
        upsert: true,
      },
    })),
  );

  if (options.count <= 0) return { inserted: 0, firstId: 0, lastId: 0 };
  // One counter move reserves the whole id range, so live writes never collide with the seeded ids.
  const counter = await connection
    .db!.collection<{ _id: string; seq: number }>('counters')
    .findOneAndUpdate({ _id: 'house' }, { $inc: { seq: options.count } }, { upsert: true, returnDocument: 'after' });
  const lastId = counter!.seq;
  const firstId = lastId - options.count + 1;
  const now = Date.now();
  const year = 365 * 24 * 3600_000;

  let inserted = 0;
  for (let start = firstId; start <= lastId; start += batchSize) {
    const docs: HouseDoc[] = [];
    for (let id = start; id <= Math.min(lastId, start + batchSize - 1); id++) {
      const [province, districts] = pick(PLACES);
      const rentalType = pick(RentalTypes);
      const authorIndex = Math.floor(random() * authorCount);
      const tags = RecommendedTags.filter(() => random() < 0.3);
      const dealState: DealState = random() < 0.2 ? 'COMPLETED' : 'ONGOING';
      const createdAt = new Date(now - Math.floor(random() * year));
      const updatedAt = new Date(Math.min(now, createdAt.getTime() + Math.floor(random() * 30 * 24 * 3600_000)));
      const kind = pick(KINDS);
      const state = { tmpYn: false, dealState, reported: false, deleted: false };
      const city = `${province} ${pick(districts)}`;
      const detail = `${Math.floor(random() * 900) + 100}-${Math.floor(random() * 20) + 1}`;
      const point = pointIn(province);
      docs.push({
        _id: id,
        authorId: SEED_AUTHOR_BASE_ID + authorIndex,
        authorType: authorIndex % 5 === 0 ? 'NONE' : 'AGENT',
        rentalType,
        city,
        detail,
        zipCode: String(10_000 + Math.floor(random() * 89_999)),
        size: String(Math.round((40 + random() * 260) * 10) / 10),
        purpose: pick(PURPOSES),
        floorNum: kind.includes('한옥') || random() < 0.6 ? 0 : Math.floor(random() * 3) + 1,
        contact: `010${String(Math.floor(random() * 1e8)).padStart(8, '0')}`,
        createdDate: String(1960 + Math.floor(random() * 64)),
        price:
          rentalType === 'SALE'
            ? Math.round(3_000 + random() * 60_000)
            : rentalType === 'JEONSE'
              ? Math.round(1_000 + random() * 30_000)
              : Math.round(100 + random() * 3_000),
        monthlyPrice: rentalType === 'MONTHLYRENT' ? Math.round((10 + random() * 120) * 2) / 2 : 0,
        agentName: authorIndex % 5 === 0 ? null : `${NICK_PREFIX[authorIndex % NICK_PREFIX.length]}공인중개사`,
        title: `${province.slice(0, 2)} ${pick(ADJECTIVES)} ${kind}`,
        code: `<p>${pick(ADJECTIVES)} ${kind}입니다. ${pick(PURPOSES)}으로 추천합니다.</p>`,
        imageUrls: Array.from({ length: 1 + Math.floor(random() * 4) }, (_, i) => `https://images.binzip.example/houses/${id}/${i}.jpg`),
        recommendedTag: tags,
        ...state,
        listed: isListed(state),
        rejectReason: null,
        rev: 0,
        ...point,
        pointSource: 'GEOCODER',
        geoCells: gridCells(point),
        geoAddress: addressOf({ city, detail }),
        geocodeDueAt: null,
        geocodeAttempts: 0,
        geocodeError: null,
        ...regionOf(city),
        createdAt,
        updatedAt,
        deletedAt: null,
      });
    }
    // Validation and casting add nothing here (the documents are built to the schema) and cost time.
    await models.houses.insertMany(docs, { ordered: false, lean: true });
    inserted += docs.length;
  }
  return { inserted, firstId, lastId };
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a non-negative integer`);
  return value;
}

async function main(): Promise<void> {
  const count = argument('count', 1_000);
  const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017';
  const db = process.env.MONGODB_DB ?? 'houses';
  const connection = await connectMongo(uri, db);
  const started = Date.now();
  try {
    const result = await seedHouses(connection, { count, authors: argument('authors', 50), batchSize: argument('batch', 1_000), seed: argument('seed', 42) });
    console.log(`seeded ${result.inserted} listings (ids ${result.firstId}-${result.lastId}) into ${db} in ${Date.now() - started} ms`);
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`seed failed: ${(err as Error).message}`);
    process.exit(1);
  });
}
