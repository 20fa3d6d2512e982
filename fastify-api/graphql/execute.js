// mercurius (Fastify's GraphQL adapter) as the executor behind the contract's transport checks:
// it parses, validates and executes, caching each query's parsed and validated document (and, with
// GRAPHQL_JIT, its graphql-jit compilation). Its own routes stay off: routes/graphql.js is the
// contract's endpoint, and its status codes and bodies are the contract's, not mercurius'.
import { readFileSync } from 'node:fs';
import { GraphQLError, Kind, Location, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import mercurius from 'mercurius';
import { createContext } from 'forum-node-common/graphql/context.js';
import { queryLimits } from 'forum-node-common/graphql/limits.js';
import { resolvers } from 'forum-node-common/graphql/resolvers.js';

// The contract's SDL, read from contract/ beside this folder (in the Docker image too).
const SDL = readFileSync(new URL('../../contract/schema.graphql', import.meta.url), 'utf8');

// A request mercurius refused before execution: its graphql-js errors, no data.
class Refused extends Error {
  constructor(errors) {
    super('refused before execution');
    this.errors = errors;
  }
}

// Registers mercurius on `app` and returns execute(params) → { errors?, data? } as graphql-js
// reports it; a database error or a bug rejects (routes/graphql.js turns them into 503/500).
export async function graphqlExecutor(app, data, limits, jit) {
  await app.register(mercurius, {
    schema: SDL,
    resolvers,
    routes: false,
    graphiql: false,
    jit,
    // The execution result as graphql-js made it: routes/graphql.js settles status and body.
    errorFormatter: (execution) => ({ statusCode: 200, response: execution }),
  });

  // mercurius takes a query that fails to parse but is JSON (e.g. "1" or "{}") for a document
  // already parsed; that is not GraphQL-over-HTTP, so such a query fails with the syntax error
  // graphql-js reports for it. Only such documents lack a parser's Location.
  app.graphql.addHook('preValidation', async (schema, document, context) => {
    if (!(document.loc instanceof Location)) parse(context.query);
  });

  // The limits depend on the request's variables, while mercurius caches a query's validation
  // across requests; so they run on every request, just before execution (after the specified
  // rules and variable coercion, both of which mercurius does first).
  app.graphql.addHook('preExecution', async (schema, document, context, variables) => {
    const errors = validate(schema, document, [queryLimits(limits, variables)]);
    if (errors.length > 0) throw new Refused(errors);
    const operation = getOperationAST(document, context.operationName);
    // graphql-js's own words, said here because a compiled query (below) would not say them.
    if (operation === null) {
      throw new Refused([new GraphQLError(context.operationName == null
        ? 'Must provide operation name if query contains multiple operations.'
        : `Unknown operation named "${context.operationName}".`)]);
    }
    // graphql 16 answers an operation the schema has no root type for (mutation, subscription)
    // with `data: null`, as if it had begun; the contract counts it as never executed (no data).
    if (schema.getRootType(operation.operation) == null) {
      throw new Refused([new GraphQLError(
        `Schema is not configured to execute ${operation.operation} operation.`, { nodes: operation })]);
    }
    // mercurius keeps one compiled query per query text, compiled for the operation its request
    // named; a document of several operations is therefore executed uncompiled (a document
    // returned here counts as modified, which mercurius never runs compiled).
    if (jit > 0 && document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length > 1) {
      return { document };
    }
    return undefined;
  });

  // mercurius rejects with its validation error (parse, validation, coercion) carrying graphql-js's
  // errors, a GraphQLError, or Refused: each an answer without data. Anything else propagates.
  function refusal(params) {
    return (error) => {
      if (error instanceof GraphQLError) return { errors: [error] };
      if (Array.isArray(error.errors) && (error instanceof Refused || error.code === 'MER_ERR_GQL_VALIDATION')) {
        return { errors: validationErrors(params) ?? error.errors };
      }
      throw error;
    };
  }

  // What graphql-js validation says of a refused request, the limits included, or null when it
  // passes (the refusal was variable coercion or the operation). The limits are checked just
  // before execution (above), so a query that also breaks a specified rule, or whose variables
  // also fail to coerce, would lose their errors; this puts them back where express-api and the
  // contract have them, after the specified rules' and before coercion. Refused requests only.
  function validationErrors({ query, variables }) {
    let document;
    try {
      document = parse(query);
    } catch (syntaxError) {
      return [syntaxError];
    }
    const errors = validate(app.graphql.schema, document, [...specifiedRules, queryLimits(limits, variables)]);
    return errors.length > 0 ? errors : null;
  }

  return ({ query, variables, operationName }) => {
    const context = { ...createContext(data), query, operationName };
    return app.graphql(query, context, variables ?? undefined, operationName ?? undefined)
      .then((result) => result, refusal({ query, variables }));
  };
}
