import { Router } from 'express';
import { createSchema } from '../graphql/schema.js';
import { responseMediaType, isJsonContentType, readBody, checkRequestBody, sendRejection,
  JSON_TYPE, NOT_ACCEPTABLE, UNSUPPORTED_CONTENT_TYPE } from '../graphql/http.js';
import { MAX_BODY_BYTES } from '../config.js';
import { methodNotAllowed } from '../problems.js';

// POST /graphql: the contract's transport checks (graphql/http.js), the same whichever GraphQL
// server library then executes the request (`server`: a module of graphql/servers/).
export function graphqlRouter(data, limits, server) {
  const execute = server.createExecutor(createSchema(), data, limits);
  const router = Router();
  router.route('/graphql')
    .post(async (req, res) => {
      const mediaType = responseMediaType(req.get('accept'));
      if (mediaType === null) return sendRejection(res, 406, JSON_TYPE, NOT_ACCEPTABLE);
      if (!isJsonContentType(req.get('content-type'))) {
        return sendRejection(res, 415, mediaType, UNSUPPORTED_CONTENT_TYPE);
      }
      const checked = checkRequestBody(await readBody(req, MAX_BODY_BYTES));
      if (!checked.params) return sendRejection(res, checked.status, mediaType, checked.message);
      return execute(req, res, mediaType, checked.params);
    })
    .all(methodNotAllowed('POST'));
  return router;
}
