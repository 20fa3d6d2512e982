using AspnetApi.Data;
using Microsoft.AspNetCore.Connections;

namespace AspnetApi.Http;

/// <summary>
/// Turns everything that is not a handler's own answer into a problem body: unmatched paths (404),
/// wrong methods (405), a body over the size limit (413) or otherwise unreadable (Kestrel's status),
/// an unreachable database (503) and bugs (500, never with a stack trace). A client that hung up
/// gets nothing (499, as ASP.NET Core's exception handler records it).
/// </summary>
public static class ErrorHandling
{
    public static void UseProblemsForErrors(this WebApplication app)
    {
        var log = app.Services.GetRequiredService<ILoggerFactory>().CreateLogger("AspnetApi.Errors");
        var db = app.Services.GetRequiredService<ForumDatabase>();
        app.Use(async (context, next) =>
        {
            try
            {
                await next(context);
            }
            catch (Exception e) when (!context.Response.HasStarted)
            {
                await ProblemFor(e, context, db, log).ExecuteAsync(context);
            }
        });
        app.UseStatusCodePages(pages => pages.HttpContext.Response.StatusCode switch
        {
            StatusCodes.Status404NotFound => Problems.NoSuchEndpoint().ExecuteAsync(pages.HttpContext),
            StatusCodes.Status405MethodNotAllowed => MethodNotAllowed(pages.HttpContext),
            _ => Task.CompletedTask,
        });
    }

    /// <summary>
    /// Routing lists HEAD in Allow for the GET routes; express-api answers HEAD on them too but, as
    /// Express does, names only GET. Both stacks send the same Allow.
    /// </summary>
    static Task MethodNotAllowed(HttpContext http)
    {
        var allowed = http.Response.Headers.Allow.ToString().Split(',', StringSplitOptions.TrimEntries);
        http.Response.Headers.Allow = string.Join(", ", allowed.Where(m => m != HttpMethods.Head));
        return Problems.MethodNotAllowed().ExecuteAsync(http);
    }

    static IResult ProblemFor(Exception e, HttpContext http, ForumDatabase db, ILogger log)
    {
        // Failures of the client's side come first: Kestrel reports a hang-up as a cancellation or
        // a ConnectionResetException, and a request cut short as a BadHttpRequestException (both
        // IOExceptions, often before RequestAborted fires). Taken for the database's transport
        // failures, each one dropped the whole pool, hundreds of times whenever a load generator
        // closed its connections with requests in flight (README.md, "One core"). Nor are they
        // bugs to log.
        if (ClientHungUp(e, http))
            return Results.StatusCode(StatusCodes.Status499ClientClosedRequest);
        if (e is BadHttpRequestException bad)
            return bad.StatusCode == StatusCodes.Status413PayloadTooLarge
                ? Problems.BodyTooLarge()
                : Problems.UnreadableRequest(bad.StatusCode, bad.Message);
        if (db.IsUnreachable(e))
        {
            db.ForgetConnections();
            return Problems.DatabaseUnreachable();
        }
        log.LogError(e, "unhandled exception");
        return Problems.Internal();
    }

    static bool ClientHungUp(Exception e, HttpContext http) =>
        e is ConnectionResetException
        || (e is OperationCanceledException or IOException && http.RequestAborted.IsCancellationRequested);
}
