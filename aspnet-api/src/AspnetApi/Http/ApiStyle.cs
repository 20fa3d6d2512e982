using AspnetApi.Endpoints;
using Microsoft.AspNetCore.Mvc.ModelBinding;

namespace AspnetApi.Http;

/// <summary>
/// How the endpoints are served, chosen at start-up by API_STYLE: minimal APIs (the default) or
/// MVC controllers (the `mvc` variant). Both route to the same handlers, data class and SQL, so
/// the only difference measured is the framework's request pipeline (routing, binding, invocation).
/// </summary>
public enum ApiStyle
{
    Minimal,
    Controllers,
}

public static class ApiStyles
{
    public const string Variable = "API_STYLE";

    public static ApiStyle FromEnvironment() => Environment.GetEnvironmentVariable(Variable) switch
    {
        null or "" or "minimal" => ApiStyle.Minimal,
        "controllers" => ApiStyle.Controllers,
        var other => throw new BadSettingException(
            $"{Variable} must be 'minimal' or 'controllers', not '{other}'."),
    };

    public static string Name(this ApiStyle style) => style == ApiStyle.Controllers ? "controllers" : "minimal";

    /// <summary>
    /// MVC without views, and without [ApiController]: its automatic 400 for invalid models would
    /// answer before the handlers' own checks, which give the contract's problem texts. The API
    /// takes no forms, so MVC's form value providers go: they would read a form-typed body before
    /// the handler (the GraphQL transport answers such a body with 415, as the contract says).
    /// </summary>
    public static void AddApiStyle(this IServiceCollection services, ApiStyle style)
    {
        if (style == ApiStyle.Controllers)
            services.AddControllers(mvc =>
            {
                mvc.ValueProviderFactories.RemoveType<FormValueProviderFactory>();
                mvc.ValueProviderFactories.RemoveType<FormFileValueProviderFactory>();
                mvc.ValueProviderFactories.RemoveType<JQueryFormValueProviderFactory>();
            });
    }

    /// <summary>The endpoint groups as minimal APIs, or the controllers of Controllers/.</summary>
    public static void MapForumEndpoints(this WebApplication app, ApiStyle style)
    {
        if (style == ApiStyle.Controllers)
        {
            app.MapControllers();
            return;
        }
        app.MapHealthEndpoints();
        app.MapCommentEndpoints();
        app.MapUserEndpoints();
        app.MapGraphQLEndpoints();
    }
}
