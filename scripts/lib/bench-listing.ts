/**
 * A saved listing as an agent writes it, the body the benchmarks (bench:site, bench:attacks' soak) seed the houses
 * service with: eight provinces, the three rental types and two tags in turn, a three-paragraph body.
 */
const PROVINCES = [
  '서울특별시 종로구',
  '경기도 양평군',
  '강원특별자치도 평창군',
  '전라남도 담양군',
  '전북특별자치도 완주군',
  '경상북도 안동시',
  '충청남도 공주시',
  '제주특별자치도 서귀포시',
];
const TAGS = ['WANT_TO_INTERIOR_FOR_THE_FIRST_TIME', 'WANT_TO_READY_HOUSE', 'HAVE_CHILDREN', 'WANT_TO_LOOK_A_GOOD_VIEW', 'WANT_TO_FARM'];
const RENTALS = ['SALE', 'JEONSE', 'MONTHLYRENT'];
export const PARAGRAPH = '<p>마당이 넓고 볕이 잘 드는 집입니다. 마을 회관과 버스 정류장이 가깝고, 뒷산 산책로가 이어집니다.</p>';

export const listingBody = (i: number) => ({
  rentalType: RENTALS[i % RENTALS.length],
  city: PROVINCES[i % PROVINCES.length],
  detail: `마을길 ${i}`,
  zipCode: '57330',
  size: String(60 + (i % 90)),
  purpose: '주거용',
  floorNum: null,
  contact: '01055556666',
  createdDate: String(1970 + (i % 50)),
  price: 3000 + (i % 40) * 250,
  monthlyPrice: i % 3 === 2 ? 30 : 0,
  agentName: '벤치중개',
  title: `볕 좋은 시골집 ${i}호`,
  code: PARAGRAPH.repeat(3),
  imageUrls: [`https://img.example.com/house-${i}.jpg`],
  tmpYn: false,
  recommendedTag: [TAGS[i % TAGS.length], TAGS[(i + 2) % TAGS.length]],
});
