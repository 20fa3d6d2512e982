using System.Net;

namespace AspnetApi.Tests;

/// <summary>GraphQL over HTTP, the contract's rules: media types, request checks, status codes.</summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class GraphQLTransportTests(RunningApp app)
{
    const string Typename = """{"query":"{ __typename }"}""";
    const string Json = "application/json";
    const string GraphQLResponse = "application/graphql-response+json";

    [Theory]
    [InlineData(null, Reply.JsonType)]
    [InlineData("*/*", Reply.JsonType)]
    [InlineData("application/*", Reply.JsonType)]
    [InlineData(Json, Reply.JsonType)]
    [InlineData(GraphQLResponse, Reply.GraphQLResponseType)]
    [InlineData("application/json, application/graphql-response+json", Reply.GraphQLResponseType)]
    [InlineData("application/graphql-response+json;q=0.5, application/json", Reply.JsonType)]
    [InlineData("application/graphql-response+json;q=0, */*", Reply.JsonType)]
    [InlineData("text/html, application/graphql-response+json;q=0.1", Reply.GraphQLResponseType)]
    public async Task Accept_ChoosesTheMediaType(string? accept, string contentType)
    {
        var reply = await Reply.PostGraphQL(app.Http, Typename, accept);
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(contentType, reply.ContentType);
        Assert.Equal("""{"data":{"__typename":"Query"}}""", reply.Body);
    }

    [Theory]
    [InlineData("text/html")]
    [InlineData("application/json;q=0")]
    public async Task Accept_NothingWeServe_Is406(string accept)
    {
        var reply = await Reply.PostGraphQL(app.Http, Typename, accept);
        Assert.Equal(HttpStatusCode.NotAcceptable, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        Assert.Equal("""{"errors":[{"message":"Accept must allow application/graphql-response+json or application/json"}]}""", reply.Body);
    }

    public static TheoryData<string, string?, int, string> BadRequests => new()
    {
        { Typename, null, 415, "Content-Type must be application/json" },
        { Typename, "text/plain", 415, "Content-Type must be application/json" },
        { Typename, "application/json; charset=latin1", 415, "Content-Type must be application/json" },
        { "", Json, 400, "the request body is not valid JSON" },
        { "{\"query\": ", Json, 400, "the request body is not valid JSON" },
        { "[{\"query\":\"{ __typename }\"}]", Json, 400, "the request body must be a JSON object" },
        { "\"{ __typename }\"", Json, 400, "the request body must be a JSON object" },
        { "null", Json, 400, "the request body must be a JSON object" },
        { "{}", Json, 400, "query must be a string" },
        { "{\"qeury\":\"{ __typename }\"}", Json, 400, "query must be a string" },
        { "{\"query\":1}", Json, 400, "query must be a string" },
        { "{\"query\":\"{ __typename }\",\"variables\":\"{}\"}", Json, 400, "variables must be an object or null" },
        { "{\"query\":\"{ __typename }\",\"variables\":[]}", Json, 400, "variables must be an object or null" },
        { "{\"query\":\"{ __typename }\",\"operationName\":1}", Json, 400, "operationName must be a string or null" },
        { "{\"query\":\"{ __typename }\",\"operationName\":{}}", Json, 400, "operationName must be a string or null" },
        { "{\"query\":\"{ __typename }\",\"extensions\":\"x\"}", Json, 400, "extensions must be an object or null" },
    };

    [Theory]
    [MemberData(nameof(BadRequests))]
    public async Task MalformedRequests_AreRejectedAlikeUnderBothMediaTypes(string body, string? contentType, int status, string message)
    {
        foreach (var (accept, type) in new[] { (Json, Reply.JsonType), (GraphQLResponse, Reply.GraphQLResponseType) })
        {
            var reply = await Reply.PostGraphQL(app.Http, body, accept, contentType);
            Assert.Equal((HttpStatusCode)status, reply.Status);
            Assert.Equal(type, reply.ContentType);
            Assert.Equal($$"""{"errors":[{"message":"{{message}}"}]}""", reply.Body);
        }
    }

    [Theory]
    [InlineData("""{"query":"{ __typename }","variables":null,"operationName":null,"extensions":null}""")]
    [InlineData("""{"query":"{ __typename }","variables":{},"extensions":{"x":1},"unknown":true}""")]
    [InlineData("""{"query":"{ __typename }"}""")]
    public async Task WellFormedRequests_AreExecuted(string body) =>
        Assert.Equal(HttpStatusCode.OK, (await Reply.PostGraphQL(app.Http, body, GraphQLResponse, "application/json; charset=UTF-8")).Status);

    public static TheoryData<string> RequestErrors => new()
    {
        """{"query":"{ commentById(id: 1) { id }"}""",
        """{"query":"{ nope }"}""",
        """{"query":"{ commentById(id: 1) }"}""",
        """{"query":"query Q($l: Int!) { commentsByLimit(limit: $l) { id } }","variables":{"l":"x"}}""",
        """{"query":"query Q($id: ID!) { commentById(id: $id) { id } }"}""",
        """{"query":"query A { __typename } query B { __typename }"}""",
        """{"query":"query A { __typename }","operationName":"B"}""",
        """{"query":"mutation { __typename }"}""",
        """{"query":"{ __schema { types { fields { type { ofType { name } } } } } }"}""",
    };

    [Theory]
    [MemberData(nameof(RequestErrors))]
    public async Task RequestErrors_Are200AsJsonAnd400AsGraphQLResponse(string body)
    {
        var asJson = await Reply.PostGraphQL(app.Http, body, Json);
        Assert.Equal(HttpStatusCode.OK, asJson.Status);
        Assert.Equal(Reply.JsonType, asJson.ContentType);
        var asGraphQL = await Reply.PostGraphQL(app.Http, body, GraphQLResponse);
        Assert.Equal(HttpStatusCode.BadRequest, asGraphQL.Status);
        Assert.Equal(Reply.GraphQLResponseType, asGraphQL.ContentType);
        Assert.Equal(asJson.Body, asGraphQL.Body);
        Assert.Equal(["errors"], asJson.Json.EnumerateObject().Select(p => p.Name));
    }

    [Fact]
    public async Task FieldErrorsWithData_Are200UnderBothMediaTypes()
    {
        var reply = await Reply.PostGraphQL(app.Http, """{"query":"{ commentsByLimit(limit: 0) { id } }"}""", GraphQLResponse);
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(["errors", "data"], reply.Json.EnumerateObject().Select(p => p.Name));
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("HEAD")]
    [InlineData("PUT")]
    public async Task OtherMethods_Are405AllowPost(string method)
    {
        var reply = await Reply.Read(await app.Http.SendAsync(new HttpRequestMessage(new HttpMethod(method), "/graphql")));
        Assert.Equal(HttpStatusCode.MethodNotAllowed, reply.Status);
        Assert.Equal("POST", string.Join(", ", reply.Raw.Content.Headers.Allow));
    }
}

[Collection(AppCollection.Name)]
public sealed class GraphQLTransportTestsOnMinimalApis(RunningApp app) : GraphQLTransportTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class GraphQLTransportTestsOnControllers(RunningAppWithControllers app) : GraphQLTransportTests(app);
