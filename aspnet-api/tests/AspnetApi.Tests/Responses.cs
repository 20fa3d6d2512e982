using System.Net;
using System.Text;
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

    /// <summary>POST /graphql with a JSON body, asking for one media type (none: no Accept header).</summary>
    public static async Task<Reply> GraphQL(HttpClient http, object body, string? accept = "application/json") =>
        await PostGraphQL(http, JsonSerializer.Serialize(body), accept);

    public static async Task<Reply> PostGraphQL(HttpClient http, string body, string? accept = "application/json",
        string? contentType = "application/json")
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, "/graphql") { Content = new ByteArrayContent(Encoding.UTF8.GetBytes(body)) };
        if (contentType is not null)
            request.Content.Headers.TryAddWithoutValidation("Content-Type", contentType);
        if (accept is not null)
            request.Headers.TryAddWithoutValidation("Accept", accept);
        return await Read(await http.SendAsync(request));
    }

    public static string ProblemJson(int status, string title, string detail) =>
        $$"""{"type":"about:blank","title":"{{title}}","status":{{status}},"detail":"{{detail}}"}""";

    public const string JsonType = "application/json; charset=utf-8";
    public const string ProblemType = "application/problem+json; charset=utf-8";
    public const string GraphQLResponseType = "application/graphql-response+json; charset=utf-8";
}
