using AspnetApi.Data;
using AspnetApi.Endpoints;
using AspnetApi.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;

namespace AspnetApi.Controllers;

/// <summary>The join endpoints as an MVC controller (variant mvc), over <see cref="UserEndpoints"/>' handlers.</summary>
[Route("rest/user/{id}")]
public sealed class UsersController(ForumDatabase db) : ControllerBase
{
    [AcceptVerbs("GET", "HEAD", Route = "comment")]
    public Task<Results<JsonBody<CommentWithUser>, JsonBody<Problem>>> FirstComment([FromRoute] string id) =>
        UserEndpoints.FirstComment(id, db);

    [AcceptVerbs("GET", "HEAD", Route = "comments/{limit}")]
    public Task<Results<JsonBody<List<CommentWithUser>>, JsonBody<Problem>>> Comments(
        [FromRoute] string id, [FromRoute] string limit) =>
        UserEndpoints.Comments(id, limit, db);
}
