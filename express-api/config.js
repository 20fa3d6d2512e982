// Settings come from the environment only, so the testbed's manifest records all of them: those
// of every Node app (forum-node-common/config.js) and the GraphQL server library.
import { commonSettings, ConfigError, loadOrExit } from 'forum-node-common/config.js';

// The GraphQL server libraries GRAPHQL_SERVER may name; the first is the default (the study's).
export const GRAPHQL_SERVERS = ['express-graphql', 'graphql-http'];

function graphqlServer(env) {
  const name = env.GRAPHQL_SERVER;
  if (name === undefined || name === '') return GRAPHQL_SERVERS[0];
  if (!GRAPHQL_SERVERS.includes(name)) {
    throw new ConfigError(`GRAPHQL_SERVER must be one of ${GRAPHQL_SERVERS.join(', ')}, not '${name}'`);
  }
  return name;
}

export function loadConfig(env = process.env) {
  return { ...commonSettings(env, 3000), graphqlServer: graphqlServer(env) };
}

// The settings, or one line that says what to fix and exit status 1.
export const loadConfigOrExit = () => loadOrExit('express-api', loadConfig);
