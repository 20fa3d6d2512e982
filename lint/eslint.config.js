// ESLint for the Node code of the repository: node-common/ and every Node app (its sources, its
// tests and its scaffold/ template). Each app's `npm test` runs it first, from the repository's
// root: `npm run lint` in express-api/ or fastify-api/ (their package.json). A small rule set on
// purpose: eslint:recommended finds mistakes (unused or undefined names, unreachable code,
// duplicate keys, …), not style.
import js from '@eslint/js';
import globals from 'globals';

export default [
  // The apps' installed packages and Node runtimes (runtimes/*/node_modules) are not ours.
  { ignores: ['**/node_modules/', '**/runtimes/'] },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    // A scaffold's routes take what the finished routes will use (rest, data) and answer 501
    // until they are written: an unused parameter there is the to-do, not a mistake.
    files: ['**/scaffold/**/*.js'],
    rules: { 'no-unused-vars': ['error', { args: 'none' }] },
  },
];
