import { readFileSync } from 'node:fs';
import { buildSchema, GraphQLError } from 'graphql';
import { parseId, ID_RULE, LIMIT_RULE } from '../params.js';

// The SDL of DESIGN §4, verbatim; resolvers are attached to it below.
const SDL = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

// ID arrives as a string (a literal or variable may be 12, "12" or "abc"): same rule as REST.
function idArgument(value) {
  const id = parseId(String(value));
  if (id === null) throw new GraphQLError(ID_RULE);
  return id;
}

// Int is already a 32-bit integer here (larger values fail validation with a 400).
function limitArgument(value) {
  if (!(value >= 1 && value <= 1000)) throw new GraphQLError(LIMIT_RULE);
  return value;
}

// Built once at start-up and shared by every request.
export function createSchema() {
  const schema = buildSchema(SDL);
  const query = schema.getQueryType().getFields();
  query.commentById.resolve = (_, args, ctx) =>
    ctx.root(ctx.data.commentById(idArgument(args.id)));
  query.commentsByLimit.resolve = (_, args, ctx) =>
    ctx.root(ctx.data.commentsByLimit(limitArgument(args.limit)));
  query.commentByUserId.resolve = (_, args, ctx) =>
    ctx.root(ctx.data.firstCommentByUserId(idArgument(args.id)));
  query.commentsByUserId.resolve = (_, args, ctx) => {
    const id = idArgument(args.id);
    return ctx.root(ctx.data.commentsByUserId(id, limitArgument(args.limit)));
  };
  // Join rows carry their user already; others go through the request's batching loader.
  schema.getType('Comment').getFields().user.resolve = (comment, _, ctx) =>
    comment.user !== undefined ? comment.user : ctx.users.load(comment.userId);
  return schema;
}
