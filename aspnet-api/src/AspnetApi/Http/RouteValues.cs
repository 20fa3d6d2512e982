using System.Text.RegularExpressions;

namespace AspnetApi.Http;

/// <summary>
/// Ids and limits arrive as raw strings so that a bad one is a 400 problem, not a route miss (404).
/// Only canonical decimal integers count: no sign, spaces, leading zeros, decimals or exponents.
/// </summary>
public static partial class RouteValues
{
    public const int MaxLimit = 1000;
    public const string IdRule = "id must be an integer from 1 to 2147483647";
    public const string LimitRule = "limit must be an integer from 1 to 1000";

    [GeneratedRegex(@"^[1-9][0-9]{0,9}\z")]
    private static partial Regex CanonicalPositive();

    public static bool TryId(string text, out int id) => TryPositive(text, int.MaxValue, out id);

    public static bool TryLimit(string text, out int limit) => TryPositive(text, MaxLimit, out limit);

    static bool TryPositive(string text, int max, out int value)
    {
        value = 0;
        if (!CanonicalPositive().IsMatch(text) || !long.TryParse(text, out var parsed) || parsed > max)
            return false;
        value = (int)parsed;
        return true;
    }
}
