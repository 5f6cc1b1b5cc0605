/**
 * Query shapes that may go without a bounding index, each with its reason. Keys: a collection name, or
 * `collection:field,field` (the filter's fields, sorted) for one shape.
 */
const ADMIN_MEMBER_SEARCH =
  "the administrators' member search is a case-insensitive substring match on userName, nickname, e-mail or phone " +
  '(backoffice.md): no B-tree bound exists, so counting its matches reads the candidates (the page itself walks the ' +
  '{createdAt, _id} index and stops at the limit). A site whose members outgrow this needs a search index.';

/** Every filter shape of that search: a searched field, alone or with the type and status filters. */
const adminMemberSearchShapes = Object.fromEntries(
  ['userName', 'nickName', 'email', 'phoneNum'].flatMap((field) =>
    [[], ['userType'], ['status'], ['status', 'userType']].map((others) => [`users(User):${[field, ...others].sort().join(',')}`, ADMIN_MEMBER_SEARCH]),
  ),
);

export const QUERY_SCAN_ALLOWED: Record<string, string> = {
  'pictures.files':
    "GridFS's own collection (shared/src/media/store.ts): the driver's GridFSBucket creates its {filename, uploadDate} index itself before the first upload; the `{}` look-up is its check for an empty bucket (limit 1)",
  'pictures.chunks': "GridFS's own collection: the driver's GridFSBucket creates its unique {files_id, n} index itself before the first upload",
  probe: "a test fixture's throw-away collection (shared/test/fixtures/lifecycle-service.ts), not the product's",
  ...adminMemberSearchShapes,
  'users(ProjectedUser):nickName':
    'nickname search is a substring match (spec): no B-tree bound exists; MongoDB walks the nickName index keys, not the documents, of a projection with one small row per user',
};
