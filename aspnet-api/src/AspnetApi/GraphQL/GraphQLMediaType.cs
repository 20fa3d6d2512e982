using Microsoft.Extensions.Primitives;
using Microsoft.Net.Http.Headers;

namespace AspnetApi.GraphQL;

/// <summary>
/// The response media type from Accept, by the contract's rule: no Accept (or only */*) means
/// application/json; otherwise the highest q among the two GraphQL types and their wildcards (which
/// stand for application/json), application/graphql-response+json on a tie; null when neither is
/// acceptable (406).
/// </summary>
public static class GraphQLMediaType
{
    public const string GraphQLResponse = "application/graphql-response+json";
    public const string Json = "application/json";

    public static string? Negotiate(StringValues accept)
    {
        if (StringValues.IsNullOrEmpty(accept) || !MediaTypeHeaderValue.TryParseList(accept, out var ranges))
            return Json;
        double graphqlResponse = -1, json = -1;
        foreach (var range in ranges)
        {
            var quality = range.Quality ?? 1;
            switch (range.MediaType.Value?.ToLowerInvariant())
            {
                case GraphQLResponse:
                    graphqlResponse = Math.Max(graphqlResponse, quality);
                    break;
                case Json or "application/*" or "*/*":
                    json = Math.Max(json, quality);
                    break;
            }
        }
        if (graphqlResponse <= 0 && json <= 0)
            return null;
        return graphqlResponse >= json ? GraphQLResponse : Json;
    }
}
