using AspnetApi.Data;
using AspnetApi.Endpoints;
using AspnetApi.Http;
using Microsoft.AspNetCore.Mvc;

namespace AspnetApi.Controllers;

/// <summary>GET /healthz as an MVC controller (variant mvc), over <see cref="HealthEndpoints"/>' handler.</summary>
public sealed class HealthController(ForumDatabase db) : ControllerBase
{
    [AcceptVerbs("GET", "HEAD", Route = "/healthz")]
    public Task<JsonBody<Health>> Check() => HealthEndpoints.Check(db);
}
