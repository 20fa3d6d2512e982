// Ids and limits: only plain decimal digits without a leading zero, within range. Anything else
// ('+1', ' 1', '1.0', '0x1', '1e3', '007') is a client mistake, identical on both stacks.
const DIGITS = /^[1-9][0-9]*$/;
const MAX_ID = 2147483647;
export const MAX_LIMIT = 1000;

export const ID_RULE = 'id must be an integer from 1 to 2147483647';
export const LIMIT_RULE = 'limit must be an integer from 1 to 1000';

function inRange(text, max) {
  if (typeof text !== 'string' || !DIGITS.test(text) || text.length > 10) return null;
  const value = Number(text);
  return value <= max ? value : null;
}

// Each returns the number, or null when the text breaks the rule.
export function parseId(text) {
  return inRange(text, MAX_ID);
}

export function parseLimit(text) {
  return inRange(text, MAX_LIMIT);
}
