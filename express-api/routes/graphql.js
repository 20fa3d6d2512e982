import { Router } from 'express';
import { graphqlHTTP } from 'express-graphql';
import { execute, GraphQLError } from 'graphql';
import { createSchema } from '../graphql/schema.js';
import { createContext } from '../graphql/context.js';
import { queryLimits } from '../graphql/limits.js';
import { isUnreachable } from '../db.js';
import { methodNotAllowed, sendProblem, UNREACHABLE_DETAIL } from '../problems.js';

// express-graphql answers 500 whenever `data` is null after execution, whether a variable failed
// to coerce (the client's mistake: 400), a non-null field got a bad argument (executed: 200) or
// the database is down (503). It always ends with res.json(result), so the status is settled there,
// from the execution result it cannot see.
function settleStatus(res) {
  let execution = null;
  const send = res.json.bind(res);
  res.json = (body) => {
    if (execution) {
      const causes = (execution.errors ?? [])
        .map((error) => error.originalError)
        .filter((cause) => cause && !(cause instanceof GraphQLError));
      if (causes.some(isUnreachable)) return sendProblem(res, 503, UNREACHABLE_DETAIL);
      if (causes.length > 0) {
        console.error(causes[0]);
        return sendProblem(res, 500, 'internal error');
      }
      res.status('data' in execution ? 200 : 400);
    }
    return send(body);
  };
  return (result) => { execution = result; };
}

export function graphqlRouter(data, limits) {
  const schema = createSchema();
  const router = Router();
  router.route('/graphql')
    .post(graphqlHTTP((req, res, params) => {
      const executed = settleStatus(res);
      return {
        schema,
        context: createContext(data),
        graphiql: false,
        // params is undefined when express-graphql could not read the body: it answers 400 then.
        validationRules: [queryLimits(limits, params?.variables)],
        customExecuteFn: async (args) => {
          const result = await execute(args);
          executed(result);
          return result;
        },
      };
    }))
    .all(methodNotAllowed('POST'));
  return router;
}
