using System.Text;
using AspnetApi.GraphQL;
using AspnetApi.Http;
using GraphQL;
using GraphQL.Transport;

namespace AspnetApi.Endpoints;

/// <summary>
/// POST /graphql over GraphQL.NET's document executer and serializer: the GraphQL-over-HTTP rules
/// of the contract (media types, request checks, status codes), as GraphQL.NET's documentation
/// builds an endpoint when its server package is not used.
/// </summary>
public static class GraphQLEndpoints
{
    public static void MapGraphQLEndpoints(this IEndpointRouteBuilder app) =>
        app.MapPost("/graphql", Execute);

    public static async Task<IResult> Execute(HttpContext http, IDocumentExecuter<ForumSchema> executer,
        IGraphQLTextSerializer serializer)
    {
        if (GraphQLMediaType.Negotiate(http.Request.Headers.Accept) is not { } mediaType)
            return Errors(StatusCodes.Status406NotAcceptable, GraphQLMediaType.Json,
                "Accept must allow application/graphql-response+json or application/json");
        var (request, rejection) = await GraphQLHttpRequest.ReadAsync(http.Request, serializer);
        if (rejection is not null)
            return Errors(rejection.Status, mediaType, rejection.Message);
        var result = await executer.ExecuteAsync(options =>
        {
            options.Query = request!.Query;
            options.Variables = request.Variables;
            options.OperationName = request.OperationName;
            options.Extensions = request.Extensions;
            options.RequestServices = http.RequestServices;
            options.CancellationToken = http.RequestAborted;
        });
        // Without data nothing was executed (parse, validation or coercion failure): a request
        // error, which only the GraphQL media type reports in the status.
        var status = result.Executed || mediaType == GraphQLMediaType.Json
            ? StatusCodes.Status200OK
            : StatusCodes.Status400BadRequest;
        return new GraphQLResponse(status, mediaType, result);
    }

    static GraphQLResponse Errors(int status, string mediaType, string message) =>
        new(status, mediaType, new ExecutionResult { Errors = [new ExecutionError(message)] });

    /// <summary>Serialized whole, like every other response, so that it carries Content-Length.</summary>
    sealed class GraphQLResponse(int status, string mediaType, ExecutionResult result) : IResult
    {
        public Task ExecuteAsync(HttpContext http)
        {
            var serializer = http.RequestServices.GetRequiredService<IGraphQLTextSerializer>();
            var body = Encoding.UTF8.GetBytes(serializer.Serialize(result));
            return http.Response.SendAsync(status, mediaType + "; charset=utf-8", body);
        }
    }
}
