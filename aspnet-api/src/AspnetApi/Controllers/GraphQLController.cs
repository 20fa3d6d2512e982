using AspnetApi.Endpoints;
using AspnetApi.GraphQL;
using GraphQL;
using Microsoft.AspNetCore.Mvc;

namespace AspnetApi.Controllers;

/// <summary>
/// POST /graphql as an MVC controller (variant mvc), so that the variant's GraphQL numbers go
/// through MVC as well; the transport is <see cref="GraphQLEndpoints"/>' own. Services come through
/// the constructor and the action binds nothing, so MVC never touches the body the handler reads.
/// </summary>
public sealed class GraphQLController(IDocumentExecuter<ForumSchema> executer, IGraphQLTextSerializer serializer)
    : ControllerBase
{
    [HttpPost("/graphql")]
    public Task<IResult> Execute() => GraphQLEndpoints.Execute(HttpContext, executer, serializer);
}
