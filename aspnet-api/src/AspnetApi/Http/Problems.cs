using Microsoft.AspNetCore.Http.HttpResults;

namespace AspnetApi.Http;

/// <summary>An RFC 9457 problem, keys in the contract's order.</summary>
public record Problem(string Type, string Title, int Status, string Detail);

/// <summary>Every error response the API gives, with the exact texts of the shared contract.</summary>
public static class Problems
{
    const string ContentType = "application/problem+json; charset=utf-8";

    public static JsonHttpResult<Problem> BadId() =>
        Create(StatusCodes.Status400BadRequest, "Bad Request", "id must be an integer from 1 to 2147483647");

    public static JsonHttpResult<Problem> BadLimit() =>
        Create(StatusCodes.Status400BadRequest, "Bad Request", "limit must be an integer from 1 to 1000");

    public static JsonHttpResult<Problem> NoComment(int id) =>
        Create(StatusCodes.Status404NotFound, "Not Found", $"comment {id} does not exist");

    public static JsonHttpResult<Problem> NoUserComments(int id) =>
        Create(StatusCodes.Status404NotFound, "Not Found", $"user {id} has no comments");

    public static JsonHttpResult<Problem> NoSuchEndpoint() =>
        Create(StatusCodes.Status404NotFound, "Not Found", "no such endpoint");

    public static JsonHttpResult<Problem> MethodNotAllowed() =>
        Create(StatusCodes.Status405MethodNotAllowed, "Method Not Allowed", "method not allowed");

    public static JsonHttpResult<Problem> DatabaseUnreachable() =>
        Create(StatusCodes.Status503ServiceUnavailable, "Service Unavailable", "the database is unreachable");

    public static JsonHttpResult<Problem> Internal() =>
        Create(StatusCodes.Status500InternalServerError, "Internal Server Error", "internal error");

    static JsonHttpResult<Problem> Create(int status, string title, string detail) =>
        TypedResults.Json(new Problem("about:blank", title, status, detail), contentType: ContentType, statusCode: status);
}
