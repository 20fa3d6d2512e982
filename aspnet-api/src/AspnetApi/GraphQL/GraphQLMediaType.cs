using System.Text.RegularExpressions;
using Microsoft.Extensions.Primitives;

namespace AspnetApi.GraphQL;

/// <summary>
/// The response media type from Accept, by the contract's rule and with express-api's reading of
/// it: no Accept, or only */* ranges, means application/json; otherwise the listed range with the
/// highest q among the two GraphQL types and their wildcards (which stand for application/json),
/// application/graphql-response+json on a tie; null when neither is acceptable (406). A range whose
/// q breaks RFC 9110's grammar is left out.
/// </summary>
public static partial class GraphQLMediaType
{
    public const string GraphQLResponse = "application/graphql-response+json";
    public const string Json = "application/json";

    [GeneratedRegex(@"^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$")]
    private static partial Regex QValue();

    public static string? Negotiate(StringValues accept)
    {
        var ranges = Ranges(accept.ToString()).ToList();
        if (ranges.All(range => range.Type == "*/*"))
            return Json;
        string? chosen = null;
        var best = 0.0;
        foreach (var (type, q) in ranges)
        {
            var mediaType = type switch
            {
                GraphQLResponse => GraphQLResponse,
                Json or "application/*" or "*/*" => Json,
                _ => null,
            };
            if (mediaType is not null && (q > best || (q == best && q > 0 && mediaType == GraphQLResponse)))
                (chosen, best) = (mediaType, q);
        }
        return chosen;
    }

    static IEnumerable<(string Type, double Q)> Ranges(string accept)
    {
        foreach (var element in accept.Split(',', StringSplitOptions.TrimEntries))
        {
            var parts = element.Split(';', StringSplitOptions.TrimEntries);
            if (parts[0].Length == 0)
                continue;
            var weight = parts.Skip(1).FirstOrDefault(p => p.StartsWith("q=", StringComparison.OrdinalIgnoreCase));
            var q = weight is null ? "1" : weight[2..];
            if (QValue().IsMatch(q))
                yield return (parts[0].ToLowerInvariant(), double.Parse(q, System.Globalization.CultureInfo.InvariantCulture));
        }
    }
}
