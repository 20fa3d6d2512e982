function decodes(segment) {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

// Kestrel keeps a percent sign that starts no valid escape as plain text, so that '/rest/comment/%zz'
// breaks the id rule like any other text; Express and Fastify's router would refuse the whole path
// with their own words. Escaping such a segment's percent signs makes the router decode it to the
// same text. The query string is left as it is.
export function lenientUrl(url) {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const lenient = path.split('/')
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25')))
    .join('/');
  return lenient === path ? url : lenient + (queryAt === -1 ? '' : url.slice(queryAt));
}
