using AspnetApi.Data;
using AspnetApi.Endpoints;
using AspnetApi.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;

namespace AspnetApi.Controllers;

/// <summary>
/// /rest/comment/{id} and /rest/comments/{limit} as an MVC controller (variant mvc). The answers are
/// <see cref="CommentEndpoints"/>' own handlers, so only MVC's pipeline differs; MVC executes the
/// returned IResult as it is (Content-Length framing, the same bytes).
/// </summary>
[Route("rest")]
public sealed class CommentsController(ForumDatabase db) : ControllerBase
{
    [AcceptVerbs("GET", "HEAD", Route = "comment/{id}")]
    public Task<Results<JsonBody<Comment>, JsonBody<Problem>>> ById([FromRoute] string id) =>
        CommentEndpoints.ById(id, db);

    [AcceptVerbs("GET", "HEAD", Route = "comments/{limit}")]
    public Task<Results<JsonBody<List<Comment>>, JsonBody<Problem>>> ByLimit([FromRoute] string limit) =>
        CommentEndpoints.ByLimit(limit, db);
}
