using AspnetApi.Data;

namespace AspnetApi.Http;

/// <summary>
/// Turns everything that is not a handler's own answer into a problem body: unmatched paths (404),
/// wrong methods (405), a body over the size limit (413), an unreachable database (503) and bugs
/// (500, never with a stack trace).
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
                await ProblemFor(e, db, log).ExecuteAsync(context);
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

    static IResult ProblemFor(Exception e, ForumDatabase db, ILogger log)
    {
        if (e is BadHttpRequestException { StatusCode: StatusCodes.Status413PayloadTooLarge })
            return Problems.BodyTooLarge();
        if (db.IsUnreachable(e))
        {
            db.ForgetConnections();
            return Problems.DatabaseUnreachable();
        }
        log.LogError(e, "unhandled exception");
        return Problems.Internal();
    }
}
