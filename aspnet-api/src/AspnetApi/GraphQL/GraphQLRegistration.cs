using System.Text.Encodings.Web;
using GraphQL;

namespace AspnetApi.GraphQL;

public static class GraphQLRegistration
{
    /// <summary>
    /// The schema (a singleton: built once, at start-up), the limits rule, System.Text.Json with
    /// JSON.stringify's escaping, errors without extensions (graphql-js sends none), and exceptions
    /// that are not GraphQL errors rethrown so that the error handler answers 503 or 500.
    /// </summary>
    public static IServiceCollection AddForumGraphQL(this IServiceCollection services, GraphQLLimitSettings limits)
    {
        services.AddSingleton(limits);
        services.AddScoped<UserBatch>();
        services.AddGraphQL(graphql => graphql
            .AddSchema<ForumSchema>()
            .AddGraphTypes(typeof(ForumSchema).Assembly)
            .AddSystemTextJson(json => json.Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping)
            .AddErrorInfoProvider(errors => errors.ExposeExtensions = false)
            .AddValidationRule<SupportedOperations>()
            .AddValidationRule<QueryLimits>()
            .ConfigureExecutionOptions(options => options.ThrowOnUnhandledException = true));
        return services;
    }

    /// <summary>Build the schema now, not on the first request, so a broken one fails start-up.</summary>
    public static void InitializeForumSchema(this IServiceProvider services) =>
        services.GetRequiredService<ForumSchema>().Initialize();
}
