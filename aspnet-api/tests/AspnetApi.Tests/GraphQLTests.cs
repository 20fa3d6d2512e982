using System.Net;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace AspnetApi.Tests;

/// <summary>The four root fields over real HTTP: the same rows as REST, in GraphQL's shape.</summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class GraphQLTests(RunningApp app)
{
    const string Fields = "id threadId userId body dateMade dateLastUpdated";
    const string WithUser = Fields + " user { id name email phone }";

    async Task<string> Data(object body)
    {
        var reply = await Reply.GraphQL(app.Http, body);
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        return reply.Body;
    }

    /// <summary>REST's JSON as GraphQL writes it: ids (the comment's and its user's) as strings.</summary>
    static JsonNode AsGraphQL(JsonNode comment)
    {
        var copy = comment.DeepClone();
        copy["id"] = comment["id"]!.GetValue<int>().ToString();
        if (copy["user"] is JsonObject user)
            user["id"] = user["id"]!.GetValue<int>().ToString();
        return copy;
    }

    async Task<JsonNode> Rest(string path) => JsonNode.Parse((await Reply.Get(app.Http, path)).Body)!;

    [Fact]
    public async Task KnownComment_ExactBytes() =>
        Assert.Equal(
            """{"data":{"commentById":{"id":"1","threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14","user":{"id":"1","name":"Aaliyah.Bosco","email":"Clarabelle.Osinski55@hotmail.com","phone":"893-788-0018 x04956"}}}}""",
            await Data(new { query = $"{{ commentById(id: 1) {{ {WithUser} }} }}" }));

    [Theory]
    [InlineData("commentsByLimit(limit: 50)", "/rest/comments/50")]
    [InlineData("commentsByLimit(limit: 100)", "/rest/comments/100")]
    [InlineData("commentsByUserId(id: \"7\", limit: 50)", "/rest/user/7/comments/50")]
    [InlineData("commentsByUserId(id: 7, limit: 100)", "/rest/user/7/comments/100")]
    public async Task ListFields_EqualRest(string field, string restPath)
    {
        var rest = (JsonArray)await Rest(restPath);
        var selection = restPath.Contains("/user/") ? WithUser : Fields;
        var body = JsonNode.Parse(await Data(new { query = $"{{ list: {field} {{ {selection} }} }}" }))!;
        Assert.Equal(new JsonArray(rest.Select(c => AsGraphQL(c!)).ToArray()).ToJsonString(), body["data"]!["list"]!.ToJsonString());
    }

    [Fact]
    public async Task CommentWithBatchedUser_EqualsTheJoin()
    {
        var joined = await Rest("/rest/user/3/comment");
        var id = joined["id"]!.GetValue<int>();
        var body = JsonNode.Parse(await Data(new { query = $"{{ commentById(id: {id}) {{ {WithUser} }} }}" }))!;
        Assert.Equal(AsGraphQL(joined).ToJsonString(), body["data"]!["commentById"]!.ToJsonString());
    }

    [Fact]
    public async Task AliasesFragmentsVariablesAndOperationName()
    {
        var body = await Data(new
        {
            query = """
                query Other { commentById(id: 2) { id } }
                query Mine($id: ID!, $n: Int!) {
                  first: commentById(id: $id) { ...basics }
                  few: commentsByLimit(limit: $n) { ... on Comment { id } }
                }
                fragment basics on Comment { id userId }
                """,
            variables = new { id = "5", n = 2 },
            operationName = "Mine",
        });
        Assert.Equal("""{"data":{"first":{"id":"5","userId":1},"few":[{"id":"1"},{"id":"2"}]}}""", body);
    }

    [Fact]
    public async Task SelectionOrder_IsTheQuerys() =>
        Assert.Equal("""{"data":{"commentById":{"body":"praesentium cena alii","id":"1","__typename":"Comment"}}}""",
            await Data(new { query = "{ commentById(id: 1) { body id __typename } }" }));

    [Theory]
    [InlineData("commentById(id: 200001)", "commentById")]
    [InlineData("commentByUserId(id: 1001)", "commentByUserId")]
    public async Task Unknown_IsNull(string field, string name) =>
        Assert.Equal("{\"data\":{\"" + name + "\":null}}", await Data(new { query = $"{{ {field} {{ id }} }}" }));

    [Fact]
    public async Task BadArgument_IsAFieldErrorBesideGoodFields() =>
        Assert.Equal(
            """{"errors":[{"message":"id must be an integer from 1 to 2147483647","locations":[{"line":1,"column":3}],"path":["a"]}],"data":{"a":null,"b":{"id":"1"}}}""",
            await Data(new { query = """{ a: commentById(id: "abc") { id } b: commentById(id: 1) { id } }""" }));

    [Fact]
    public async Task BadLimit_NullsTheNonNullListAndData() =>
        Assert.Equal(
            """{"errors":[{"message":"limit must be an integer from 1 to 1000","locations":[{"line":1,"column":3}],"path":["commentsByLimit"]}],"data":null}""",
            await Data(new { query = "{ commentsByLimit(limit: 0) { id } }" }));

    [Fact]
    public async Task UsersOfAList_OneBatchedStatement()
    {
        var selects = await ServerCounters.SelectsDuring(() =>
            Data(new { query = "{ commentsByLimit(limit: 100) { id user { id } } }" }));
        Assert.Equal(2, selects);
    }

    [Fact]
    public async Task AliasedRootsWithUsers_OneBatchedStatementBetweenThem()
    {
        var selects = await ServerCounters.SelectsDuring(() => Data(new
        {
            query = "{ a: commentsByLimit(limit: 3) { user { id } } b: commentById(id: 150000) { user { name } } c: commentById(id: 9) { user { id } } }",
        }));
        Assert.Equal(4, selects);
    }

    [Fact]
    public async Task JoinFields_NeedNoUserStatement()
    {
        var selects = await ServerCounters.SelectsDuring(() =>
            Data(new { query = "{ commentsByUserId(id: 4, limit: 50) { id user { name } } }" }));
        Assert.Equal(1, selects);
    }

    [Fact]
    public async Task Schema_IsBuiltOnceAndServesTheContractsTypes()
    {
        var body = JsonNode.Parse(await Data(new { query = "{ __schema { queryType { name } types { name } } }" }))!;
        var names = body["data"]!["__schema"]!["types"]!.AsArray().Select(t => t!["name"]!.GetValue<string>()).ToHashSet();
        Assert.Equal("Query", body["data"]!["__schema"]!["queryType"]!["name"]!.GetValue<string>());
        Assert.Superset(new HashSet<string> { "Query", "Comment", "User", "ID", "Int", "String", "Boolean" }, names);
        Assert.DoesNotContain(names, n => !n.StartsWith("__") && n is not ("Query" or "Comment" or "User" or "ID" or "Int" or "String" or "Boolean"));
    }
}

[Collection(AppCollection.Name)]
public sealed class GraphQLTestsOnMinimalApis(RunningApp app) : GraphQLTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class GraphQLTestsOnControllers(RunningAppWithControllers app) : GraphQLTests(app);
