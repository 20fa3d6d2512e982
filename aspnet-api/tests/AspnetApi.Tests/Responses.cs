using System.Net;
using System.Text.Json;

namespace AspnetApi.Tests;

/// <summary>A response read whole: status, the two headers the contract fixes, and the body bytes as text.</summary>
public sealed record Reply(HttpStatusCode Status, string? ContentType, string Body, HttpResponseMessage Raw)
{
    public static async Task<Reply> Get(HttpClient http, string path) => await Read(await http.GetAsync(path));

    public static async Task<Reply> Read(HttpResponseMessage response) => new(
        response.StatusCode, response.Content.Headers.ContentType?.ToString(),
        await response.Content.ReadAsStringAsync(), response);

    public JsonElement Json => JsonDocument.Parse(Body).RootElement;

    public static string ProblemJson(int status, string title, string detail) =>
        $$"""{"type":"about:blank","title":"{{title}}","status":{{status}},"detail":"{{detail}}"}""";

    public const string JsonType = "application/json; charset=utf-8";
    public const string ProblemType = "application/problem+json; charset=utf-8";
}
