using AspnetApi.Data;
using AspnetApi.Http;

namespace AspnetApi.Endpoints;

public record Health(string Status);

/// <summary>GET /healthz: ready once `SELECT 1` succeeds; 503 (via the error handler) until then.</summary>
public static class HealthEndpoints
{
    public static void MapHealthEndpoints(this IEndpointRouteBuilder app) =>
        app.MapGetAndHead("/healthz", Check);

    public static async Task<JsonBody<Health>> Check(ForumDatabase db)
    {
        await db.Ping();
        return JsonBody.Ok(new Health("ok"));
    }
}
