using System.Net;

namespace AspnetApi.Tests;

/// <summary>Depth 5, 200 fields and 1,000 comments: at their edges, and rejected before any SQL.</summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class GraphQLLimitsTests(RunningApp app)
{
    static string Aliases(int count, Func<int, string> field) =>
        "{ " + string.Join(" ", Enumerable.Range(0, count).Select(i => $"a{i}: {field(i)}")) + " }";

    async Task<Reply> Post(object body) => await Reply.GraphQL(app.Http, body);

    static void Rejected(Reply reply, string message)
    {
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal($$"""{"errors":[{"message":"{{message}}","locations":[{"line":1,"column":1}]}]}""", reply.Body);
    }

    static void Executed(Reply reply)
    {
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(["data"], reply.Json.EnumerateObject().Select(p => p.Name));
    }

    [Fact]
    public async Task Depth5_Passes_Depth6_IsRejected()
    {
        Executed(await Post(new { query = "{ __type(name: \"Query\") { fields { type { ofType { name } } } } }" }));
        Rejected(await Post(new { query = "{ __type(name: \"Query\") { fields { type { ofType { ofType { name } } } } } }" }),
            "query is nested 6 levels deep; the maximum is 5");
    }

    [Fact]
    public async Task DepthCountsFragmentsWhereSpread() =>
        Rejected(await Post(new { query = "{ __type(name: \"Query\") { ...f } } fragment f on __Type { fields { type { ofType { ofType { name } } } } }" }),
            "query is nested 6 levels deep; the maximum is 5");

    [Fact]
    public async Task Fields200_Pass_201_AreRejected()
    {
        Executed(await Post(new { query = Aliases(100, i => $"commentById(id: {i + 1}) {{ id }}") }));
        Rejected(await Post(new { query = Aliases(100, i => $"commentById(id: {i + 1}) {{ id }}").TrimEnd('}') + "__typename }" }),
            "query selects 201 fields; the maximum is 200");
    }

    [Fact]
    public async Task Comments1000_Pass_1001_AreRejectedWithoutSql()
    {
        Executed(await Post(new { query = "{ a: commentsByLimit(limit: 999) { id } b: commentById(id: 1) { id } }" }));
        var rejected = new List<Reply>();
        var selects = await ServerCounters.SelectsDuring(async () =>
            rejected.Add(await Post(new { query = "{ a: commentsByLimit(limit: 1000) { id } b: commentByUserId(id: 1) { id } }" })));
        Rejected(rejected[0], "query asks for 1001 comments; the maximum is 1000");
        Assert.Equal(0, selects);
    }

    [Fact]
    public async Task TheAliasFloodOfTheIssue_IsRejected() =>
        Rejected(await Post(new { query = Aliases(33, _ => "commentsByLimit(limit: 1000) { id }") }),
            "query asks for 33000 comments; the maximum is 1000");

    [Theory]
    [InlineData("query Q($n: Int!) { a: commentsByLimit(limit: $n) { id } b: commentsByUserId(id: 1, limit: $n) { id } }", """{"n":501}""", 1002)]
    [InlineData("query Q($n: Int = 600) { a: commentsByLimit(limit: $n) { id } b: commentsByLimit(limit: 401) { id } }", "{}", 1001)]
    [InlineData("query Q($n: Int = 1) { a: commentsByLimit(limit: $n) { id } b: commentsByLimit(limit: 401) { id } }", """{"n":600}""", 1001)]
    [InlineData("{ ...f ...f } fragment f on Query { commentsByLimit(limit: 501) { id } }", "{}", 1002)]
    public async Task CommentsCountVariablesDefaultsAndFragments(string query, string variables, int comments) =>
        Rejected(await Reply.PostGraphQL(app.Http, $$"""{"query":{{System.Text.Json.JsonSerializer.Serialize(query)}},"variables":{{variables}}}"""),
            $"query asks for {comments} comments; the maximum is 1000");

    [Fact]
    public async Task ALimitOutOfRange_CountsNothingAndFailsAsItsField()
    {
        var reply = await Post(new { query = "{ commentsByLimit(limit: 1001) { id } }" });
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal("limit must be an integer from 1 to 1000", reply.Json.GetProperty("errors")[0].GetProperty("message").GetString());
    }
}

[Collection(AppCollection.Name)]
public sealed class GraphQLLimitsTestsOnMinimalApis(RunningApp app) : GraphQLLimitsTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class GraphQLLimitsTestsOnControllers(RunningAppWithControllers app) : GraphQLLimitsTests(app);
