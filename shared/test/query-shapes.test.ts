import { filterBranches, findUnservedQueries, indexServes, shapeOf, type IndexDeclaration } from '../src/store/query-shapes';

const declared: IndexDeclaration[] = [
  {
    kind: 'indexes',
    collection: 'comments',
    indexes: [
      [
        ['authorId', 1],
        ['_id', -1],
      ],
      [['boardId', 1]],
    ],
  },
];

test('filters become equality, range and residual fields; $or splits into branches', () => {
  expect(filterBranches({ a: 1, b: { $in: [1, 2] }, c: { $gte: 3 }, d: { $ne: 1 }, e: /x/, f: /^x/ })).toEqual([
    { a: 'eq', b: 'eq', c: 'range', d: 'residual', e: 'residual', f: 'range' },
  ]);
  expect(filterBranches({ deleted: false, $or: [{ x: 1 }, { y: 2 }] })).toEqual([
    { deleted: 'eq', x: 'eq' },
    { deleted: 'eq', y: 'eq' },
  ]);
  expect(shapeOf({ aggregate: 'c', pipeline: [{ $match: { a: 1 } }, { $sort: { b: -1 } }] })).toMatchObject({ branches: [{ a: 'eq' }], sort: [['b', -1]] });
  // An $elemMatch over subdocuments matches the members' fields.
  expect(shapeOf({ find: 'c', filter: { deletedAt: null, reviewers: { $elemMatch: { userId: 3, status: 'wait' } } } })).toMatchObject({
    branches: [{ deletedAt: 'eq', 'reviewers.userId': 'eq', 'reviewers.status': 'eq' }],
  });
  // The driver sends a find's sort as a Map, in key order.
  const sort = new Map<string, number>([
    ['createdAt', -1],
    ['_id', -1],
  ]);
  expect(shapeOf({ find: 'c', filter: {}, sort })).toMatchObject({
    branches: [{}],
    sort: [
      ['createdAt', -1],
      ['_id', -1],
    ],
  });
});

test('an index serves equality first, then the sort in either direction, then a range', () => {
  const index: Array<[string, 1 | -1]> = [
    ['authorId', 1],
    ['_id', -1],
  ];
  expect(indexServes(index, { authorId: 'eq', deleted: 'eq' }, [['_id', -1]])).toBe(true);
  expect(indexServes(index, { authorId: 'eq' }, [['_id', 1]])).toBe(true);
  expect(indexServes(index, { authorId: 'eq' }, [['createdAt', -1]])).toBe(false);
  expect(indexServes(index, { deleted: 'eq' }, [])).toBe(false);
  expect(indexServes([['_id', 1]], {}, [['_id', -1]])).toBe(true);
  expect(indexServes([['price', 1]], { price: 'range' }, [])).toBe(true);
});

test('a query no declared index serves is reported; allow-listed shapes and _id look-ups are not', () => {
  const shapes = [
    shapeOf({ find: 'comments', filter: { authorId: 3, deleted: false }, sort: { _id: -1 } })!,
    shapeOf({ find: 'comments', filter: { _id: { $in: [1, 2] } } })!,
    shapeOf({ find: 'comments', filter: { content: /집/ }, sort: { createdAt: -1 } })!,
    shapeOf({ count: 'comments', query: { deleted: false } })!,
    shapeOf({ find: 'users', filter: { nickName: /abc/ } })!,
  ];
  expect(findUnservedQueries(shapes, declared, { 'users:nickName': 'substring search' })).toEqual([
    { collection: 'comments', command: 'find', branch: { content: 'residual' }, sort: [['createdAt', -1]] },
    { collection: 'comments', command: 'count', branch: { deleted: 'eq' }, sort: [] },
  ]);
});
