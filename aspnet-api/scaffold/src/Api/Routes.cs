using MySqlConnector;

namespace Api;

/// <summary>One group per resource. /healthz works; the others answer 501 until written.</summary>
public static class Routes
{
    static readonly string[] GetOrHead = ["GET", "HEAD"];

    /// <summary>Ready means "can reach the database": SELECT 1 succeeds, else 503.</summary>
    public static void MapHealth(this WebApplication app) =>
        app.MapMethods("/healthz", GetOrHead, async (HttpContext context, MySqlDataSource db) =>
        {
            try
            {
                await using var command = db.CreateCommand("SELECT 1");
                await command.ExecuteScalarAsync();
            }
            catch (MySqlException)
            {
                await Responses.Problem(context, 503, "Service Unavailable", "the database is unreachable");
                return;
            }
            await Responses.Json(context, 200, """{"status":"ok"}""");
        });

    // TODO: the contract's answers (contract/openapi.yaml, contract/README.md; the SQL in
    // docs/adding-a-framework.md), parameterized SQL, records for the response objects.
    public static void MapRoutesStillToWrite(this WebApplication app)
    {
        foreach (var route in new[] { "/rest/comment/{id}", "/rest/comments/{limit}",
                     "/rest/user/{id}/comment", "/rest/user/{id}/comments/{limit}" })
            app.MapMethods(route, GetOrHead, Responses.NotImplemented($"GET {route}"));
        app.MapPost("/graphql", Responses.NotImplemented("POST /graphql"));
    }
}
