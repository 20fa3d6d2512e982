using AspnetApi.Data;
using Microsoft.AspNetCore.Http.HttpResults;

namespace AspnetApi.Endpoints;

public record Health(string Status);

/// <summary>GET /healthz: ready once `SELECT 1` succeeds; 503 (via the error handler) until then.</summary>
public static class HealthEndpoints
{
    public static void MapHealthEndpoints(this IEndpointRouteBuilder app) =>
        app.MapGet("/healthz", Check);

    static async Task<Ok<Health>> Check(ForumDatabase db)
    {
        await db.Ping();
        return TypedResults.Ok(new Health("ok"));
    }
}
