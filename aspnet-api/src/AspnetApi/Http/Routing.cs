namespace AspnetApi.Http;

public static class Routing
{
    static readonly string[] GetAndHead = [HttpMethods.Get, HttpMethods.Head];

    /// <summary>
    /// GET, and HEAD with the same status and headers but no body (Kestrel drops a HEAD response's
    /// body), as Express answers HEAD for every GET route.
    /// </summary>
    public static RouteHandlerBuilder MapGetAndHead(this IEndpointRouteBuilder app, string pattern, Delegate handler) =>
        app.MapMethods(pattern, GetAndHead, handler);
}
