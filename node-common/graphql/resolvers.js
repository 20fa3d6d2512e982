import { GraphQLError } from 'graphql';
import { parseId, ID_RULE, LIMIT_RULE } from '../params.js';

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

// The resolvers of contract/schema.graphql, by type and field, as mercurius takes them and as
// express-api attaches them to the schema graphql-js builds; `ctx` is graphql/context.js's, one
// per request.
export const resolvers = {
  Query: {
    commentById: (_, args, ctx) => ctx.root(ctx.data.commentById(idArgument(args.id))),
    commentsByLimit: (_, args, ctx) => ctx.root(ctx.data.commentsByLimit(limitArgument(args.limit))),
    commentByUserId: (_, args, ctx) => ctx.root(ctx.data.firstCommentByUserId(idArgument(args.id))),
    commentsByUserId: (_, args, ctx) => {
      const id = idArgument(args.id);
      return ctx.root(ctx.data.commentsByUserId(id, limitArgument(args.limit)));
    },
  },
  Comment: {
    // Join rows carry their user already; others go through the request's batching loader.
    user: (comment, _, ctx) => (comment.user !== undefined ? comment.user : ctx.users.load(comment.userId)),
  },
};
