// A GraphQL body (forum-node-common/graphql/http.js) as the media type the request chose; Express
// adds the charset, as for every JSON answer.
export function sendGraphQL(res, status, mediaType, body) {
  res.status(status).type(mediaType).send(body);
}
