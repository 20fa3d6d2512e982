using System.Text.Json;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.Extensions.Options;

namespace AspnetApi.Http;

/// <summary>
/// A JSON response serialized whole before it is sent, so it goes out with Content-Length and
/// without chunking, as Express's res.send of a string does: both stacks put the same framing on
/// the wire, not only the same JSON.
/// </summary>
public sealed class JsonBody<T>(T value, int statusCode, string contentType) : IResult, IStatusCodeHttpResult
{
    public int? StatusCode => statusCode;

    public Task ExecuteAsync(HttpContext http)
    {
        var options = http.RequestServices.GetRequiredService<IOptions<JsonOptions>>().Value.SerializerOptions;
        return http.Response.SendAsync(statusCode, contentType, JsonSerializer.SerializeToUtf8Bytes(value, options));
    }
}

public static class JsonBody
{
    public const string JsonType = "application/json; charset=utf-8";

    public static JsonBody<T> Ok<T>(T value) => new(value, StatusCodes.Status200OK, JsonType);

    /// <summary>Status, type and length first, then the bytes in one write (HEAD: Kestrel drops them).</summary>
    public static Task SendAsync(this HttpResponse response, int statusCode, string contentType, byte[] body)
    {
        response.StatusCode = statusCode;
        response.ContentType = contentType;
        response.ContentLength = body.Length;
        return response.Body.WriteAsync(body).AsTask();
    }
}
