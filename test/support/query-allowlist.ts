/**
 * Query shapes that may go without a bounding index, each with its reason. Keys: a collection name, or
 * `collection:field,field` (the filter's fields, sorted) for one shape.
 */
export const QUERY_SCAN_ALLOWED: Record<string, string> = {
  'users(ProjectedUser):nickName':
    'nickname search is a substring match (spec): no B-tree bound exists; MongoDB walks the nickName index keys, not the documents, of a projection with one small row per user',
  'users(User):userName':
    "the administrators' member search is a substring match over four fields (backoffice.md): no B-tree bound exists; the page itself walks the createdAt index, its total walks this field's unique index keys, never the documents",
  'users(User):nickName':
    "the administrators' member search is a substring match over four fields (backoffice.md): no B-tree bound exists; the page itself walks the createdAt index, its total walks this field's unique index keys, never the documents",
  'users(User):email':
    "the administrators' member search is a substring match over four fields (backoffice.md): no B-tree bound exists; the page itself walks the createdAt index, its total walks this field's unique index keys, never the documents",
  'users(User):phoneNum':
    "the administrators' member search is a substring match over four fields (backoffice.md): no B-tree bound exists; the page itself walks the createdAt index, its total walks this field's unique index keys, never the documents",
};
