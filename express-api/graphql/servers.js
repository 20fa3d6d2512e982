// The GraphQL server library GRAPHQL_SERVER names (config.js GRAPHQL_SERVERS), imported alone, so
// that a process loads, and pays the memory of, the one it runs.
const MODULES = {
  'express-graphql': () => import('./servers/express-graphql.js'),
  'graphql-http': () => import('./servers/graphql-http.js'),
};

export function loadGraphqlServer(name) {
  return MODULES[name]();
}
