using System.Text.Json;
using GraphQL;
using GraphQL.Transport;

namespace AspnetApi.GraphQL;

/// <summary>
/// A POST /graphql body checked by the contract's request rules, in their order, with their texts
/// (contract/README.md, "The GraphQL transport"): either the request, or the status and message of
/// the first rule it breaks.
/// </summary>
public sealed record GraphQLHttpRequest(string Query, Inputs? Variables, string? OperationName, Inputs? Extensions)
{
    public sealed record Rejection(int Status, string Message);

    public static async Task<(GraphQLHttpRequest? Request, Rejection? Rejection)> ReadAsync(
        HttpRequest http, IGraphQLTextSerializer serializer)
    {
        if (!IsJsonContentType(http.ContentType))
            return (null, new(StatusCodes.Status415UnsupportedMediaType, "Content-Type must be application/json"));
        using var body = new MemoryStream();
        await http.Body.CopyToAsync(body, http.HttpContext.RequestAborted);
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(body.GetBuffer().AsMemory(0, (int)body.Length));
        }
        catch (JsonException)
        {
            return (null, BadRequest("the request body is not valid JSON"));
        }
        using (document)
            return Read(document.RootElement, serializer);
    }

    static (GraphQLHttpRequest?, Rejection?) Read(JsonElement root, IGraphQLTextSerializer serializer)
    {
        if (root.ValueKind != JsonValueKind.Object)
            return (null, BadRequest("the request body must be a JSON object"));
        if (!root.TryGetProperty("query", out var query) || query.ValueKind != JsonValueKind.String)
            return (null, BadRequest("query must be a string"));
        if (Present(root, "variables") is { ValueKind: not JsonValueKind.Object })
            return (null, BadRequest("variables must be an object or null"));
        if (Present(root, "operationName") is { ValueKind: not JsonValueKind.String })
            return (null, BadRequest("operationName must be a string or null"));
        if (Present(root, "extensions") is { ValueKind: not JsonValueKind.Object })
            return (null, BadRequest("extensions must be an object or null"));
        return (new GraphQLHttpRequest(
            query.GetString()!,
            Present(root, "variables") is { } variables ? serializer.ReadNode<Inputs>(variables) : null,
            Present(root, "operationName")?.GetString(),
            Present(root, "extensions") is { } extensions ? serializer.ReadNode<Inputs>(extensions) : null), null);
    }

    /// <summary>The property's value unless it is absent or null (the spec treats both alike).</summary>
    static JsonElement? Present(JsonElement root, string name) =>
        root.TryGetProperty(name, out var value) && value.ValueKind != JsonValueKind.Null ? value : null;

    static Rejection BadRequest(string message) => new(StatusCodes.Status400BadRequest, message);

    /// <summary>application/json, with no parameter but charset=utf-8 (case-insensitively; an empty one is no parameter).</summary>
    static bool IsJsonContentType(string? contentType)
    {
        if (contentType is null)
            return false;
        var parts = contentType.Split(';', StringSplitOptions.TrimEntries);
        return parts[0].Equals(GraphQLMediaType.Json, StringComparison.OrdinalIgnoreCase)
               && parts.Skip(1).All(p => p.Length == 0 || p.Equals("charset=utf-8", StringComparison.OrdinalIgnoreCase));
    }
}
