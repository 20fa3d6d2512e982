using System.Text;

namespace Api;

/// <summary>Bodies written whole with their Content-Length (the contract's framing): JSON and
/// RFC 9457 problems, the only error shape the contract allows.</summary>
public static class Responses
{
    public static Task Json(HttpContext context, int status, string body, string type = "application/json") =>
        Write(context, status, type, body);

    public static Task Problem(HttpContext context, int status, string title, string detail) =>
        Write(context, status, "application/problem+json",
            $$"""{"type":"about:blank","title":"{{title}}","status":{{status}},"detail":"{{detail}}"}""");

    public static Task NoSuchEndpoint(HttpContext context) => Problem(context, 404, "Not Found", "no such endpoint");

    /// <summary>What a route of the skeleton answers until it is written: ./testbed verify lists each.</summary>
    public static RequestDelegate NotImplemented(string route) =>
        context => Problem(context, 501, "Not Implemented", $"not implemented yet: {route}");

    static Task Write(HttpContext context, int status, string type, string body)
    {
        var bytes = Encoding.UTF8.GetBytes(body);
        context.Response.StatusCode = status;
        context.Response.ContentType = $"{type}; charset=utf-8";
        context.Response.ContentLength = bytes.Length;
        return context.Response.Body.WriteAsync(bytes).AsTask();
    }
}
