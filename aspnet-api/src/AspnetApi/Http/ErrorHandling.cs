using AspnetApi.Data;

namespace AspnetApi.Http;

/// <summary>
/// Turns everything that is not a handler's own answer into a problem body: unmatched paths (404),
/// wrong methods (405, routing has already set Allow), an unreachable database (503) and bugs (500,
/// never with a stack trace).
/// </summary>
public static class ErrorHandling
{
    public static void UseProblemsForErrors(this WebApplication app)
    {
        var log = app.Services.GetRequiredService<ILoggerFactory>().CreateLogger("AspnetApi.Errors");
        app.Use(async (context, next) =>
        {
            try
            {
                await next(context);
            }
            catch (Exception e) when (!context.Response.HasStarted)
            {
                await ProblemFor(e, log).ExecuteAsync(context);
            }
        });
        app.UseStatusCodePages(pages => pages.HttpContext.Response.StatusCode switch
        {
            StatusCodes.Status404NotFound => Problems.NoSuchEndpoint().ExecuteAsync(pages.HttpContext),
            StatusCodes.Status405MethodNotAllowed => Problems.MethodNotAllowed().ExecuteAsync(pages.HttpContext),
            _ => Task.CompletedTask,
        });
    }

    static IResult ProblemFor(Exception e, ILogger log)
    {
        if (ForumDatabase.IsUnreachable(e))
        {
            ForumDatabase.ForgetConnections();
            return Problems.DatabaseUnreachable();
        }
        log.LogError(e, "unhandled exception");
        return Problems.Internal();
    }
}
