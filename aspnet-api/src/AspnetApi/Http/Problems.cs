namespace AspnetApi.Http;

/// <summary>An RFC 9457 problem, keys in the contract's order.</summary>
public record Problem(string Type, string Title, int Status, string Detail);

/// <summary>Every problem response the API gives, with the exact texts of the shared contract.</summary>
public static class Problems
{
    const string ContentType = "application/problem+json; charset=utf-8";

    public static JsonBody<Problem> BadId() =>
        Create(StatusCodes.Status400BadRequest, "Bad Request", RouteValues.IdRule);

    public static JsonBody<Problem> BadLimit() =>
        Create(StatusCodes.Status400BadRequest, "Bad Request", RouteValues.LimitRule);

    public static JsonBody<Problem> NoComment(int id) =>
        Create(StatusCodes.Status404NotFound, "Not Found", $"comment {id} does not exist");

    public static JsonBody<Problem> NoUserComments(int id) =>
        Create(StatusCodes.Status404NotFound, "Not Found", $"user {id} has no comments");

    public static JsonBody<Problem> NoSuchEndpoint() =>
        Create(StatusCodes.Status404NotFound, "Not Found", "no such endpoint");

    public static JsonBody<Problem> MethodNotAllowed() =>
        Create(StatusCodes.Status405MethodNotAllowed, "Method Not Allowed", "method not allowed");

    public static JsonBody<Problem> BodyTooLarge() =>
        Create(StatusCodes.Status413PayloadTooLarge, "Payload Too Large", "request entity too large");

    /// <summary>
    /// A request Kestrel could not read (cut short, or its body too slow): its status, titled as
    /// express-api's problem handler titles a client error it has no title for.
    /// </summary>
    public static JsonBody<Problem> UnreadableRequest(int status, string detail) =>
        Create(status, "Bad Request", detail);

    public static JsonBody<Problem> DatabaseUnreachable() =>
        Create(StatusCodes.Status503ServiceUnavailable, "Service Unavailable", "the database is unreachable");

    public static JsonBody<Problem> Internal() =>
        Create(StatusCodes.Status500InternalServerError, "Internal Server Error", "internal error");

    static JsonBody<Problem> Create(int status, string title, string detail) =>
        new(new Problem("about:blank", title, status, detail), status, ContentType);
}
